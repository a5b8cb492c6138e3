/** The inspector webview's entry: connects to VS Code and renders the app. */
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { Host, type VsCodeApi } from './host';
import './inspector.css';

declare function acquireVsCodeApi(): VsCodeApi;

const host = new Host(acquireVsCodeApi(), window);
createRoot(document.getElementById('root')!).render(<App host={host} />);
