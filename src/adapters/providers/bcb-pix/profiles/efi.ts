import type { PspProfile } from "./profile.ts"

/**
 * Efí (ex-Gerencianet). Token by HTTP Basic with a JSON body; every path under `/v2`. It notifies over mTLS
 * with its own CA chain; `x-skip-mtls-checking` turns that off, and then Efí documents an IP allow-list
 * plus a secret in the URL (rails-research §1.4).
 */
export const efi: PspProfile = {
  name: "efi",
  apiHost: { production: "https://pix.api.efipay.com.br", homologation: "https://pix-h.api.efipay.com.br" },
  pathPrefix: "/v2",
  tokenUrl: {
    production: "https://pix.api.efipay.com.br/oauth/token",
    homologation: "https://pix-h.api.efipay.com.br/oauth/token"
  },
  tokenAuth: "basic",
  grantTypeInQuery: false,
  tokenBodyJson: true,
  scopes: null,
  appKeyQuery: null,
  appKeyHeader: null,
  correlationHeader: null,
  accountHeader: null,
  webhookAuth: "mtls-or-url-secret",
  webhookRegistration: "api"
}
