/**
 * The store's folder in a workspace (or above a command's folder) when no setting names another.
 * In a module of its own, importing nothing, so the hooks that run before every shell command
 * find the store without loading the settings' schemas.
 */
export const STORE_DIR = '.retained';
