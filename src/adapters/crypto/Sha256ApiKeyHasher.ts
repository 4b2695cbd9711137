import { hash } from "node:crypto"
import { Layer } from "effect"
import { ApiKeyHasher } from "../../ports/ApiKeyHasher.ts"

/** One-shot `hash`: no Hash object per request (half the cost of createHash/update/digest for a key). */
export const digestApiKey = (key: string): Uint8Array => hash("sha256", key, "buffer")

export const Sha256ApiKeyHasher = Layer.succeed(ApiKeyHasher, ApiKeyHasher.of({ digest: digestApiKey }))
