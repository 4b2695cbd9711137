import type { AccountId, CustomerId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { CardBrand } from "../domain/card.ts"

export interface VaultCard {
  readonly pan: string
  readonly expMonth: number
  readonly expYear: number
  readonly holderName: string
}

export interface StoredCard {
  readonly token: string
  /** Null for a card held only while a manual review decides its charge (CONTRACT-v1 §9). */
  readonly customerId: CustomerId | null
  readonly brand: CardBrand
  readonly last4: string
  readonly expMonth: number
  readonly expYear: number
  readonly holderName: string
}

/**
 * Vaulted cards: the PAN encrypted (AES-256-GCM under CARD_VAULT_KEY), last four and brand in clear
 * for display, the CVV never. Tokens are random and opaque.
 */
export class CardVault extends Context.Tag("CardVault")<
  CardVault,
  {
    readonly store: (
      accountId: AccountId,
      customerId: CustomerId | null,
      brand: CardBrand,
      card: VaultCard
    ) => Effect.Effect<StoredCard>
    /** The card and its PAN, for a charge. None for an unknown token or one of another account. */
    readonly reveal: (
      accountId: AccountId,
      token: string
    ) => Effect.Effect<Option.Option<StoredCard & { readonly pan: string }>>
  }
>() {}
