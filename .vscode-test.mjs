// `npm run test:vscode`: the extension-host suite in desktop VS Code, where it can be downloaded.
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'dist/test/vscode/suite.test.js',
  workspaceFolder: './test/vscode/workspace',
  mocha: { ui: 'bdd', timeout: 60000 },
});
