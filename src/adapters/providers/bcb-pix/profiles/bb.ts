import type { PspProfile } from "./profile.ts"

/**
 * Banco do Brasil. Tokens on its OAuth host by HTTP Basic; every API call carries the developer application
 * key as a query parameter, `gw-app-key` in production and `gw-dev-app-key` in homologation.
 */
export const bb: PspProfile = {
  name: "bb",
  apiHost: { production: "https://api.bb.com.br", homologation: "https://api.hm.bb.com.br" },
  pathPrefix: "/pix/v2",
  tokenUrl: {
    production: "https://oauth.bb.com.br/oauth/token",
    homologation: "https://oauth.hm.bb.com.br/oauth/token"
  },
  tokenAuth: "basic",
  grantTypeInQuery: false,
  tokenBodyJson: false,
  scopes: "cob.write cob.read pix.read pix.write webhook.read webhook.write",
  appKeyQuery: { production: "gw-app-key", homologation: "gw-dev-app-key" },
  appKeyHeader: null,
  correlationHeader: null,
  accountHeader: null,
  webhookAuth: "mtls",
  webhookRegistration: "api"
}
