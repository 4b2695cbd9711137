import type { PspProfile } from "./profile.ts"

/** Santander. Paths under `/api/v1` carry v2 content; the grant type travels in the token URL's query. */
export const santander: PspProfile = {
  name: "santander",
  apiHost: { production: "https://trust-pix.santander.com.br", homologation: "https://trust-pix-h.santander.com.br" },
  pathPrefix: "/api/v1",
  tokenUrl: {
    production: "https://trust-pix.santander.com.br/oauth/token",
    homologation: "https://trust-pix-h.santander.com.br/oauth/token"
  },
  tokenAuth: "form",
  grantTypeInQuery: true,
  tokenBodyJson: false,
  scopes: null,
  appKeyQuery: null,
  appKeyHeader: null,
  correlationHeader: null,
  accountHeader: null,
  webhookAuth: "mtls",
  webhookRegistration: "api"
}
