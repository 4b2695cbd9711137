import type { AccountId } from "../../domain/ids.ts"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { Account } from "../../domain/account.ts"
import { EmailAlreadyRegistered } from "../../domain/errors.ts"
import { AccountRepo } from "../../ports/AccountRepo.ts"

interface AccountRow {
  readonly id: AccountId
  readonly name: string
  readonly email: string
  readonly passwordHash: string
  readonly createdAt: Date
}

const toAccount = (row: AccountRow) =>
  Account.make({ id: row.id, name: row.name, email: row.email, createdAt: row.createdAt }, { disableValidation: true })

export const AccountRepoLive = Layer.effect(
  AccountRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return AccountRepo.of({
      insert: (account) =>
        sql<AccountRow>`
          insert into accounts (id, name, email, password_hash)
          values (${account.id}, ${account.name}, ${account.email}, ${account.passwordHash})
          on conflict do nothing
          returning *`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) =>
            rows[0] ? Effect.succeed(toAccount(rows[0])) : Effect.fail(new EmailAlreadyRegistered())
          )
        ),
      findByEmail: (email) =>
        sql<AccountRow>`select * from accounts where lower(email) = lower(${email})`.pipe(
          Effect.orDie,
          Effect.map((rows) =>
            Option.fromNullable(rows[0]).pipe(
              Option.map((row) => ({ account: toAccount(row), passwordHash: row.passwordHash }))
            )
          )
        ),
      findById: (id) =>
        sql<AccountRow>`select * from accounts where id = ${id}`.pipe(
          Effect.orDie,
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toAccount))
        )
    })
  })
)
