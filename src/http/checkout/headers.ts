/** A strict policy: no inline script or style, nothing framed, nothing from elsewhere. */
export const CHECKOUT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/** Every checkout response's security headers: the policy above, no sniffing, no referrer, no framing. */
export const CHECKOUT_SECURITY_HEADERS = {
  "content-security-policy": CHECKOUT_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}
