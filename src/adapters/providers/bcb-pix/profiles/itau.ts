import type { PspProfile } from "./profile.ts"

/**
 * Itaú. Tokens from its STS host with the credentials in the form; every API call carries `x-itau-apikey`
 * and a fresh `x-itau-correlationid`. In 2021 webhooks were registered by e-mail (bacen/pix-api#371), so
 * registration is left to the operator.
 */
export const itau: PspProfile = {
  name: "itau",
  apiHost: { production: "https://secure.api.itau", homologation: "https://sandbox.devportal.itau.com.br" },
  pathPrefix: "/pix_recebimentos/v2",
  tokenUrl: {
    production: "https://sts.itau.com.br/api/oauth/token",
    homologation: "https://sandbox.devportal.itau.com.br/api/oauth/jwt"
  },
  tokenAuth: "form",
  grantTypeInQuery: false,
  tokenBodyJson: false,
  scopes: null,
  appKeyQuery: null,
  appKeyHeader: "x-itau-apikey",
  correlationHeader: "x-itau-correlationid",
  accountHeader: null,
  webhookAuth: "mtls",
  webhookRegistration: "manual"
}
