import { AccountId } from "../../domain/ids.ts"
import { SqlClient } from "@effect/sql"
import { traced } from "./traced.ts"
import { Effect, Layer, Option, Schema } from "effect"
import { Tenant } from "../../domain/account.ts"
import { EmailAlreadyRegistered } from "../../domain/errors.ts"
import { Mode } from "../../domain/mode.ts"
import { AccountRepo } from "../../ports/AccountRepo.ts"

/** An account row as the database gives it (camelCased); a row that does not decode is a defect. */
const AccountRow = Schema.Struct({
  id: AccountId,
  name: Schema.String,
  email: Schema.String,
  passwordHash: Schema.String,
  mode: Mode,
  ownerId: Schema.NullOr(AccountId),
  createdAt: Schema.DateFromSelf
})
type AccountRow = typeof AccountRow.Type
/** The columns AccountRow reads, named: a prepared `*` would fail once a migration adds one (prepared.ts). */
const COLUMNS = "id, name, email, password_hash, mode, owner_id, created_at"

const toAccount = (raw: unknown) => {
  const row = Schema.decodeUnknownSync(AccountRow)(raw)
  return Tenant.make({
    id: row.id,
    name: row.name,
    email: row.email,
    mode: row.mode,
    ownerId: row.ownerId,
    createdAt: row.createdAt
  })
}

export const AccountRepoLive = Layer.effect(
  AccountRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    return AccountRepo.of(
      traced("AccountRepo", {
        insert: (account) =>
          sql<AccountRow>`
          insert into accounts (id, name, email, password_hash, document)
          values (${account.id}, ${account.name}, ${account.email}, ${account.passwordHash}, ${account.document})
          on conflict do nothing
          returning ${columns}`.pipe(
            Effect.orDie,
            Effect.flatMap((rows) =>
              rows[0] ? Effect.succeed(toAccount(rows[0])) : Effect.fail(new EmailAlreadyRegistered())
            )
          ),
        findByEmail: (email) =>
          // Merchants log in; a live tenant (owner_id set) shares its merchant's email and has no password.
          sql<AccountRow>`
          select ${columns} from accounts where lower(email) = lower(${email}) and owner_id is null`.pipe(
            Effect.orDie,
            Effect.map((rows) =>
              Option.fromNullable(rows[0]).pipe(
                Option.map((row) => ({ account: toAccount(row), passwordHash: row.passwordHash }))
              )
            )
          ),
        findById: (id) =>
          sql<AccountRow>`select ${columns} from accounts where id = ${id}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toAccount))
          ),
        liveTenant: (ownerId, newId) =>
          // The password hash '!' matches no password: only the merchant's own row is ever logged into.
          sql<AccountRow>`
          with made as (
            insert into accounts (id, name, email, password_hash, document, mode, owner_id)
            select ${newId}, o.name, o.email, '!', o.document, 'live', o.id
            from accounts o where o.id = ${ownerId} and o.owner_id is null
            on conflict (owner_id) where owner_id is not null do nothing
            returning ${columns})
          select ${columns} from made
          union all
          select ${columns} from accounts where owner_id = ${ownerId} and mode = 'live'`.pipe(
            // A concurrent creation that committed after this statement's snapshot: read it again.
            Effect.flatMap((rows) =>
              rows[0]
                ? Effect.succeed(rows)
                : sql<AccountRow>`select ${columns} from accounts where owner_id = ${ownerId} and mode = 'live'`
            ),
            Effect.orDie,
            Effect.flatMap((rows) =>
              rows[0] ? Effect.succeed(toAccount(rows[0])) : Effect.dieMessage(`no merchant account ${ownerId}`)
            )
          )
      })
    )
  })
)
