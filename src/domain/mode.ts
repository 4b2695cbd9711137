import { Schema } from "effect"

/**
 * A tenant's mode (issue 24 §1, docs/decisions.md "Test and live modes"). Test mode runs on the sandbox
 * rails and never reaches a real provider; live mode runs on the providers the operator configured and
 * never reaches a sandbox adapter.
 */
export const Mode = Schema.Literal("test", "live")
export type Mode = typeof Mode.Type

export const isLive = (mode: Mode): boolean => mode === "live"
