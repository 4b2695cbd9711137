import type { PspProfile } from "./profile.ts"

/** Banco Inter. Token at `/oauth/v2/token` with the credentials in the form; `x-conta-corrente` picks the account. */
export const inter: PspProfile = {
  name: "inter",
  apiHost: {
    production: "https://cdpj.partners.bancointer.com.br",
    homologation: "https://cdpj-sandbox.partners.uatinter.co"
  },
  pathPrefix: "/pix/v2",
  tokenUrl: {
    production: "https://cdpj.partners.bancointer.com.br/oauth/v2/token",
    homologation: "https://cdpj-sandbox.partners.uatinter.co/oauth/v2/token"
  },
  tokenAuth: "form",
  grantTypeInQuery: false,
  tokenBodyJson: false,
  scopes: "cob.write cob.read pix.read pix.write webhook.read webhook.write",
  appKeyQuery: null,
  appKeyHeader: null,
  correlationHeader: null,
  accountHeader: "x-conta-corrente",
  webhookAuth: "mtls",
  webhookRegistration: "api"
}
