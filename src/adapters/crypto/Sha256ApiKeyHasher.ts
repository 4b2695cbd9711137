import { createHash } from "node:crypto"
import { Layer } from "effect"
import { ApiKeyHasher } from "../../ports/ApiKeyHasher.ts"

export const digestApiKey = (key: string): Uint8Array => createHash("sha256").update(key, "utf8").digest()

export const Sha256ApiKeyHasher = Layer.succeed(ApiKeyHasher, ApiKeyHasher.of({ digest: digestApiKey }))
