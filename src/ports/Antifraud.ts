import { Context, type Effect } from "effect"
import type { CardBrand } from "../domain/card.ts"

export interface AntifraudRequest {
  readonly transactionId: string
  readonly amount: number
  readonly bin: string
  readonly last4: string
  readonly brand: CardBrand
  readonly buyerDocument?: string | undefined
  readonly buyerBirthdate?: string | undefined
}

/** The analysis kept with the transaction (read by /public/v1/antifraud later). */
export interface AntifraudAnalysis {
  readonly decision: "approve" | "review" | "deny"
  /** 0 (safe) to 100 (fraud). */
  readonly score: number
  readonly reason: string | null
}

export class Antifraud extends Context.Tag("Antifraud")<
  Antifraud,
  {
    readonly assess: (request: AntifraudRequest) => Effect.Effect<AntifraudAnalysis>
  }
>() {}
