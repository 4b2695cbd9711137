/**
 * How one PSP exposes the Banco Central's API Pix: the same contract, small deviations. A profile is data
 * (docs/providers.md "PIX: the Banco Central's API Pix"); the adapter reads it and the fake PSP enforces it.
 * Sources: ../shared/notes/rails-research.md §1.4 and §1.5.
 */
export interface PspProfile {
  readonly name: string
  /** API host per environment, without the path prefix. */
  readonly apiHost: { readonly production: string; readonly homologation: string }
  /** Path prefix before `/cob`, `/pix`, `/webhook` (Santander's `/api/v1` carries v2 content). */
  readonly pathPrefix: string
  /** Token endpoint per environment (absolute: some PSPs issue tokens on another host). */
  readonly tokenUrl: { readonly production: string; readonly homologation: string }
  /**
   * How the client credentials travel to the token endpoint: HTTP Basic, or `client_id`/`client_secret` in
   * the form body. `grant_type=client_credentials` goes in the form body, or also in the query when
   * `grantTypeInQuery` (Santander).
   */
  readonly tokenAuth: "basic" | "form"
  readonly grantTypeInQuery: boolean
  /** A body for the token request as JSON rather than a form (Efí documents JSON). */
  readonly tokenBodyJson: boolean
  /** Scopes to ask for, space-separated, when the PSP wants them named. */
  readonly scopes: string | null
  /** Query parameter carrying the developer application key on every API call (BB). */
  readonly appKeyQuery: { readonly production: string; readonly homologation: string } | null
  /** Header carrying the application key on every API call (Itaú `x-itau-apikey`). */
  readonly appKeyHeader: string | null
  /** Header carrying a fresh correlation id on every API call (Itaú). */
  readonly correlationHeader: string | null
  /** Header selecting the merchant's account (Inter `x-conta-corrente`). */
  readonly accountHeader: string | null
  /**
   * How the PSP authenticates its notifications: by a client certificate its CA issued (`mtls`), or by
   * that where it can, with a secret in the URL plus an IP allow-list as the documented fallback.
   */
  readonly webhookAuth: "mtls" | "mtls-or-url-secret"
  /** Webhook registration by the API (`PUT /webhook/{chave}`) or by the PSP's staff (`manual`). */
  readonly webhookRegistration: "api" | "manual"
}
