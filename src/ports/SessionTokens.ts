import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"

export type SessionCheck =
  | { readonly _tag: "Valid"; readonly accountId: AccountId }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Invalid" }

/** Short-lived login tokens for the key-management endpoints. */
export class SessionTokens extends Context.Tag("SessionTokens")<
  SessionTokens,
  {
    readonly issue: (accountId: AccountId) => Effect.Effect<string>
    readonly check: (token: string) => Effect.Effect<SessionCheck>
  }
>() {}
