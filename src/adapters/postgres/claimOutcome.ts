import type { Claim } from "../../ports/IdempotencyStore.ts"

/** What `idempotency_claim` (migration 0012) returns, in both statements that call it. */
export interface ClaimColumns {
  readonly outcome: string
  readonly resourceId: string | null
  readonly responseStatus: number | null
  readonly responseBody: string | null
}

export const claimOutcome = (row: ClaimColumns): Claim => {
  switch (row.outcome) {
    case "acquired":
      return { _tag: "Acquired", resourceId: row.resourceId! }
    case "completed":
      return { _tag: "Completed", response: { status: row.responseStatus!, body: row.responseBody! } }
    case "mismatch":
      return { _tag: "Mismatch" }
    default:
      return { _tag: "InFlight" }
  }
}
