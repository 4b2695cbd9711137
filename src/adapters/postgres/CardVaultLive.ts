import type { CustomerId } from "../../domain/ids.ts"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { traced } from "./traced.ts"
import { Effect, Layer, Option, Redacted } from "effect"
import type { CardBrand } from "../../domain/card.ts"
import { last4 } from "../../domain/card.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import { CardVault, type StoredCard, type VaultCard } from "../../ports/CardVault.ts"
import { fn } from "../../spans.ts"

// AES-256-GCM with a random 96-bit IV per card: far below the 2^32 encryptions per key NIST SP 800-38D
// allows with random IVs. The associated data binds a ciphertext to its account and token, so a ciphertext
// copied into another row (or account) fails authentication instead of revealing a PAN.

interface CardRow extends StoredCard {
  readonly panCiphertext: Uint8Array
  readonly panIv: Uint8Array
  readonly panTag: Uint8Array
}

/** The columns CardRow reads, named: a prepared `*` would fail once a migration adds one (prepared.ts). */
const COLUMNS = "token, customer_id, brand, last4, exp_month, exp_year, holder_name, pan_ciphertext, pan_iv, pan_tag"

/** "card_" + 32 random bytes in base64url (43 characters). */
const TOKEN = /^card_[A-Za-z0-9_-]{43}$/

const associatedData = (accountId: string, token: string) => Buffer.from(`${accountId}:${token}`, "utf8")

const seal = (key: Buffer, aad: Buffer, pan: string) => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: 16 }).setAAD(aad)
  const ciphertext = Buffer.concat([cipher.update(pan, "utf8"), cipher.final()])
  return { panCiphertext: ciphertext, panIv: iv, panTag: cipher.getAuthTag() }
}

/** Throws when the tag does not authenticate (wrong key, tampered or moved ciphertext). */
const open = (key: Buffer, aad: Buffer, row: CardRow): string => {
  const decipher = createDecipheriv("aes-256-gcm", key, row.panIv, { authTagLength: 16 })
    .setAAD(aad)
    .setAuthTag(row.panTag)
  return Buffer.concat([decipher.update(row.panCiphertext), decipher.final()]).toString("utf8")
}

const toStoredCard = (row: CardRow): StoredCard => ({
  token: row.token,
  customerId: row.customerId,
  brand: row.brand,
  last4: row.last4,
  expMonth: row.expMonth,
  expYear: row.expYear,
  holderName: row.holderName
})

export const CardVaultLive = Layer.effect(
  CardVault,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const key = Buffer.from(Redacted.value((yield* AppConfig).cardVaultKey), "base64")
    if (key.length !== 32) return yield* Effect.dieMessage("CARD_VAULT_KEY must be 32 bytes, base64-encoded")

    const stored = fn("CardVault.store")(function* (
      accountId: string,
      customerId: CustomerId | null,
      brand: CardBrand,
      card: VaultCard
    ) {
      const token = `card_${randomBytes(32).toString("base64url")}`
      const stored: StoredCard = {
        token,
        customerId,
        brand,
        last4: last4(card.pan),
        expMonth: card.expMonth,
        expYear: card.expYear,
        holderName: card.holderName
      }
      const sealed = seal(key, associatedData(accountId, token), card.pan)
      if (customerId === null) {
        yield* sql`insert into cards ${sql.insert({ ...stored, accountId, ...sealed })}`.pipe(Effect.orDie)
        return Option.some(stored)
      }
      // Only for a live customer, whose row is read `for share`: a deletion (CustomerRepo `softDelete`) waits
      // for this insert to commit and then deletes the card, or this insert waits for the deletion and then
      // stores nothing. The parameters are cast: in a select list they would be read as text.
      const inserted = yield* sql<{ readonly token: string }>`
      insert into cards (token, account_id, customer_id, brand, last4, exp_month, exp_year, holder_name,
        pan_ciphertext, pan_iv, pan_tag)
      select ${token}::text, ${accountId}::uuid, c.id, ${brand}::text, ${stored.last4}::text,
        ${stored.expMonth}::integer, ${stored.expYear}::integer, ${stored.holderName}::text,
        ${sealed.panCiphertext}::bytea, ${sealed.panIv}::bytea, ${sealed.panTag}::bytea
      from customers c
      where c.id = ${customerId} and c.account_id = ${accountId} and c.deleted_at is null
      for share of c
      returning token`.pipe(Effect.orDie)
      return inserted.length > 0 ? Option.some(stored) : Option.none()
    })
    // A held card (no customer) is always stored; a customer's, only while the customer is live.
    function store(
      accountId: string,
      customerId: CustomerId,
      brand: CardBrand,
      card: VaultCard
    ): Effect.Effect<Option.Option<StoredCard>>
    function store(accountId: string, customerId: null, brand: CardBrand, card: VaultCard): Effect.Effect<StoredCard>
    function store(accountId: string, customerId: CustomerId | null, brand: CardBrand, card: VaultCard) {
      const result = stored(accountId, customerId, brand, card)
      return customerId === null ? Effect.map(result, Option.getOrThrow) : result
    }

    return CardVault.of(
      traced("CardVault", {
        store,

        reveal: fn("CardVault.reveal")(function* (accountId: string, token: string) {
          // Not a token we issue: no need to ask the database (nor to send it arbitrary input).
          if (!TOKEN.test(token)) return Option.none()
          const rows = yield* sql<CardRow>`
          select ${columns} from cards where token = ${token} and account_id = ${accountId}`.pipe(Effect.orDie)
          const row = rows[0]
          if (row === undefined) return Option.none()
          const pan = yield* Effect.option(Effect.try(() => open(key, associatedData(accountId, token), row)))
          if (Option.isNone(pan)) {
            // For the operator, once per attempt: a key that changed makes every saved card unusable. The line
            // names the account only, no card data nor token; the cause (Node's "unable to authenticate data")
            // is dropped.
            yield* Effect.logError(
              "CardVault: a stored card failed to decrypt (wrong CARD_VAULT_KEY or altered row)"
            ).pipe(Effect.annotateLogs({ accountId }))
            return Option.some({ _tag: "Unreadable" as const, ...toStoredCard(row) })
          }
          return Option.some({ _tag: "Revealed" as const, ...toStoredCard(row), pan: pan.value })
        }),

        discard: fn("CardVault.discard")(function* (accountId: string, token: string) {
          if (!TOKEN.test(token)) return false
          // One statement: `transactions.card_token` references the card (no action on delete), a check made
          // at the statement's end, once its charge no longer names it. A customer's card is not deleted, and
          // then no charge is unlinked either.
          const rows = yield* sql<{ readonly token: string }>`
          with discarded as (
            delete from cards
            where token = ${token} and account_id = ${accountId} and customer_id is null
            returning token
          ), unlinked as (
            update transactions set card_token = null
            where account_id = ${accountId} and card_token in (select token from discarded)
          )
          select token from discarded`.pipe(Effect.orDie)
          return rows.length > 0
        })
      })
    )
  })
)
