import type { AccountId } from "../domain/ids.ts"
import { Effect } from "effect"
import type { ListKey } from "../ports/Page.ts"
import { RequestLog } from "../ports/RequestLog.ts"
import { fn } from "../spans.ts"

/** The account's request log, newest first (issue 20 §2, docs/webhooks.md "Request log"). */
export class RequestLogs extends Effect.Service<RequestLogs>()("RequestLogs", {
  effect: Effect.gen(function* () {
    const log = yield* RequestLog
    return {
      list: fn("RequestLogs.list")(function* (
        accountId: AccountId,
        filter: { readonly keyId?: string | undefined },
        limit: number,
        after: ListKey | undefined
      ) {
        return yield* log.list(accountId, filter, limit, after)
      })
    }
  })
}) {}
