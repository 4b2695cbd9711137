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
  /**
   * Null for a card held only while a manual review decides its charge (CONTRACT-v1 §9): discarded once it
   * is decided (`discard`).
   */
  readonly customerId: CustomerId | null
  readonly brand: CardBrand
  readonly last4: string
  readonly expMonth: number
  readonly expYear: number
  readonly holderName: string
}

/** A vaulted card whose PAN the vault opened, for a charge. */
export interface RevealedCard extends StoredCard {
  readonly _tag: "Revealed"
  readonly pan: string
}

/**
 * A vaulted card whose PAN no longer decrypts: CARD_VAULT_KEY is not the key it was stored under, or its
 * row was altered. It cannot be charged; the merchant must tokenize the card again (ops/README.md
 * "Secrets"). What is kept in clear (customer, brand, last four, expiry) is still given.
 */
export interface UnreadableCard extends StoredCard {
  readonly _tag: "Unreadable"
}

/**
 * Vaulted cards: the PAN encrypted (AES-256-GCM under CARD_VAULT_KEY), last four and brand in clear
 * for display, the CVV never. Tokens are random and opaque.
 */
export class CardVault extends Context.Tag("CardVault")<
  CardVault,
  {
    /**
     * Vaults a card: a customer's saved card, or one held for a manual review (no customer). A customer's
     * card is stored only while that customer is live (not deleted) in the account: None otherwise, nothing
     * stored (a deletion deletes the customer's saved cards, `CustomerRepo.softDelete`).
     */
    readonly store: {
      (
        accountId: AccountId,
        customerId: CustomerId,
        brand: CardBrand,
        card: VaultCard
      ): Effect.Effect<Option.Option<StoredCard>>
      (accountId: AccountId, customerId: null, brand: CardBrand, card: VaultCard): Effect.Effect<StoredCard>
    }
    /**
     * The card and its PAN, for a charge, or the card as Unreadable when its PAN no longer decrypts (the
     * caller decides what that means for its charge). None for an unknown token or one of another account.
     */
    readonly reveal: (
      accountId: AccountId,
      token: string
    ) => Effect.Effect<Option.Option<RevealedCard | UnreadableCard>>
    /**
     * Deletes a card held for a manual review (no customer) of that account, and unlinks it from its charge
     * (`card_token` null), in one statement: once the review is decided nothing needs its PAN (PCI DSS 3.1).
     * A customer's saved card, an unknown token and another account's are left as they are. True when a
     * card was deleted. Inside the caller's database transaction when there is one.
     */
    readonly discard: (accountId: AccountId, token: string) => Effect.Effect<boolean>
  }
>() {}
