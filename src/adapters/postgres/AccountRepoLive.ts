import { AccountId } from "../../domain/ids.ts"
import { SqlClient } from "@effect/sql"
import { traced } from "./traced.ts"
import { Effect, Layer, Option, Schema } from "effect"
import { Account } from "../../domain/account.ts"
import { EmailAlreadyRegistered } from "../../domain/errors.ts"
import { AccountRepo } from "../../ports/AccountRepo.ts"

/** An account row as the database gives it (camelCased); a row that does not decode is a defect. */
const AccountRow = Schema.Struct({
  id: AccountId,
  name: Schema.String,
  email: Schema.String,
  passwordHash: Schema.String,
  createdAt: Schema.DateFromSelf
})
type AccountRow = typeof AccountRow.Type
/** The columns AccountRow reads, named: a prepared `*` would fail once a migration adds one (prepared.ts). */
const COLUMNS = "id, name, email, password_hash, created_at"

const toAccount = (raw: unknown) => {
  const row = Schema.decodeUnknownSync(AccountRow)(raw)
  return Account.make({ id: row.id, name: row.name, email: row.email, createdAt: row.createdAt })
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
          sql<AccountRow>`select ${columns} from accounts where lower(email) = lower(${email})`.pipe(
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
          )
      })
    )
  })
)
