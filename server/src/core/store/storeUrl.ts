/** Whether a store's address is a team store's URL (else it is a folder): a file of its own, so a hook that only needs this loads no store (cli/rewriteHooks.ts). */
export function isStoreUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store);
}
