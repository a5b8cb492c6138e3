/**
 * The language server's entry: the server itself, or, when started as a thread of it, an import
 * (importThread.ts). One bundle for both.
 */
import { isImportThread, runImportThread } from './importThread';

if (isImportThread()) void runImportThread();
else void import('./server');
