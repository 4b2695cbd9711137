import type { PspProfile } from "./profile.ts"

/**
 * Sicoob. Tokens from its Keycloak realm on another host; the client is identified by `client_id` and its
 * certificate (no secret is sent when none is configured). The sandbox takes a static token.
 */
export const sicoob: PspProfile = {
  name: "sicoob",
  apiHost: { production: "https://api.sicoob.com.br", homologation: "https://sandbox.sicoob.com.br/sicoob/sandbox" },
  pathPrefix: "/pix/api/v2",
  tokenUrl: {
    production: "https://auth.sicoob.com.br/auth/realms/cooperado/protocol/openid-connect/token",
    homologation: "https://auth.sicoob.com.br/auth/realms/cooperado/protocol/openid-connect/token"
  },
  tokenAuth: "form",
  grantTypeInQuery: false,
  tokenBodyJson: false,
  scopes: "cob.write cob.read pix.read pix.write webhook.read webhook.write",
  appKeyQuery: null,
  appKeyHeader: null,
  correlationHeader: null,
  accountHeader: null,
  webhookAuth: "mtls",
  webhookRegistration: "api"
}
