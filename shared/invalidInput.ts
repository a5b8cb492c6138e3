/**
 * The one error for input that cannot be used as given: a request's params, a webview message,
 * a setting, a query. Its message names the field and the fix; servers answer it as InvalidParams.
 */
export class InvalidInput extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidInput';
  }
}
