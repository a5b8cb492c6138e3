/** The version every door reports (the CLI, the MCP server, the language server); package.json's, held equal by a test. */
export const VERSION = '0.1.0';
