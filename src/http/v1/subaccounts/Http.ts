import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { Subaccounts } from "../../../app/Subaccounts.ts"
import { normalizeDocument } from "../../../domain/document.ts"
import { NotFound, ValidationFailed, validated } from "../../../domain/errors.ts"
import { subaccountIdOf } from "../../../domain/ids.ts"
import { SUBACCOUNT_STATUSES, type SubaccountRecord, type SubaccountStatus } from "../../../domain/subaccount.ts"
import { isUuid } from "../../../domain/uuid.ts"
import { GatewayApi } from "../../Api.ts"
import { idempotentPost } from "../../shared/idempotency.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { listWindow, paginationOf } from "../listParams.ts"
import { renderedV1 } from "../render.ts"
import { V1Subaccount } from "./Api.ts"
import { decodeSubaccount } from "./command.ts"
import { v1Subaccount } from "./present.ts"
import { withLivemode } from "../../shared/livemode.ts"

/** An id that is not a UUID names no subaccount: 404, as for another account's (CONTRACT-v1 §1). */
const knownId = (id: string) =>
  isUuid(id) ? Effect.succeed(subaccountIdOf(id)) : Effect.fail(new NotFound({ message: "subaccount not found" }))

const isStatus = (s: string): s is SubaccountStatus => (SUBACCOUNT_STATUSES as ReadonlyArray<string>).includes(s)

// Live records carry `livemode: true` (http/shared/livemode.ts).
const present = (s: SubaccountRecord) =>
  Effect.flatMap(withLivemode(v1Subaccount(s)), (body) => Schema.encode(V1Subaccount)(body).pipe(Effect.orDie))

export const V1SubaccountsHttp = HttpApiBuilder.group(GatewayApi, "v1Subaccounts", (handlers) =>
  Effect.gen(function* () {
    const subaccounts = yield* Subaccounts

    return handlers
      .handle("create", ({ headers, payload }) =>
        idempotentPost(headers["idempotency-key"], (accountId, id) =>
          Effect.gen(function* () {
            const command = yield* validated(decodeSubaccount(payload, subaccountIdOf(id)))
            const created = yield* subaccounts.create(accountId, command)
            return { status: 201, body: { success: true, data: yield* present(created) } }
          }).pipe(renderedV1)
        )
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownId(path.id)
          return { success: true as const, data: yield* present(yield* subaccounts.get(accountId, id)) }
        }).pipe(renderedV1)
      )
      .handle("list", ({ urlParams: q }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const window = listWindow("subaccounts", q)
          const errors = Either.isLeft(window) ? [...window.left] : []
          if (q.status !== undefined && !isStatus(q.status)) {
            errors.push({ field: "status", message: `status must be one of ${SUBACCOUNT_STATUSES.join(", ")}` })
          }
          if (errors.length > 0 || Either.isLeft(window)) return yield* new ValidationFailed({ errors })
          const page = yield* subaccounts.page(
            accountId,
            {
              document: q.document === undefined ? undefined : normalizeDocument(q.document),
              status: q.status as SubaccountStatus | undefined,
              createdFrom: window.right.createdFrom,
              createdBefore: window.right.createdBefore
            },
            window.right.range
          )
          return {
            success: true as const,
            data: yield* Effect.forEach(page.rows, present),
            pagination: paginationOf(window.right, page)
          }
        }).pipe(renderedV1)
      )
  })
)
