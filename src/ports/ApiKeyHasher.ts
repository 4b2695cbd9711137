import { Context } from "effect"

/**
 * The one-way digest under which an API key is stored and looked up (CONTRACT §3): a high-entropy key
 * needs no slow hash, and a lookup by digest costs one index probe.
 */
export class ApiKeyHasher extends Context.Tag("ApiKeyHasher")<
  ApiKeyHasher,
  { readonly digest: (fullKey: string) => Uint8Array }
>() {}
