import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { loadAppConfig } from "./AppConfig.ts"

/**
 * docs/antifraud.md: the velocity windows are positive integers and "a bad value stops start-up with a message
 * naming the variable". A window past ten years was accepted, and then every card charge was a 500 (its
 * bucket's end beyond what a Date holds): start-up now refuses it.
 */
const load = (env: Record<string, string>) =>
  Effect.runPromise(
    loadAppConfig.pipe(
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map(
            Object.entries({
              NODE_ENV: "production",
              JWT_SECRET: "x".repeat(40),
              CARD_VAULT_KEY: Buffer.alloc(32, 1).toString("base64"),
              ...env
            })
          )
        )
      ),
      Effect.either
    )
  )

describe("the antifraud's velocity windows at start-up", () => {
  it.each(["ANTIFRAUD_CARD_VELOCITY_WINDOW_SECONDS", "ANTIFRAUD_DOCUMENT_VELOCITY_WINDOW_SECONDS"])(
    "%s past ten years stops start-up naming it; ten years is taken",
    async (name) => {
      const huge = await load({ [name]: "10000000000000" })
      expect(Either.isLeft(huge)).toBe(true)
      expect(String(Either.isLeft(huge) ? huge.left : "")).toContain(name)
      expect(Either.isRight(await load({ [name]: String(10 * 366 * 86_400) }))).toBe(true)
    }
  )
})
