/** Query parameters that carry credentials (CONTRACT-v1 §1: `api_token`), never logged or stored. */
const SECRET_PARAMS = /([?&](?:api_token|apiToken|api_key|token)=)[^&#]*/gi

/** The URL with every credential in its query replaced by `[REDACTED]`. */
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, "$1[REDACTED]")
