import { HttpApiBuilder } from "@effect/platform"
import { Effect, Stream } from "effect"
import { Transactions } from "../../../app/Transactions.ts"
import { toTransaction, Transaction } from "../../../domain/transaction.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../render.ts"
import { jsonArrayStream } from "../../shared/jsonStream.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { toListFilter } from "../listQuery.ts"

export const TransactionsHttp = HttpApiBuilder.group(GatewayApi, "transactions", (handlers) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId, mode }) =>
          jsonArrayStream(
            Transaction,
            Stream.map(transactions.list(accountId, toListFilter(urlParams)), (t) => toTransaction(t, mode === "live"))
          )
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId, mode }) =>
          Effect.map(transactions.get(accountId, path.transactionId), (t) => toTransaction(t, mode === "live"))
        ).pipe(rendered)
      )
      .handle("amountDue", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) =>
          transactions.amountDue(accountId, path.transactionId, urlParams.date, "date")
        ).pipe(
          Effect.map(({ date, dueDate, due }) => ({
            transactionId: path.transactionId,
            date,
            dueDate,
            principal: due.principal,
            abatement: due.abatement,
            discount: due.discount,
            fine: due.fine,
            interest: due.interest,
            amountDue: due.total,
            daysLate: due.daysLate
          })),
          rendered
        )
      )
  })
)
