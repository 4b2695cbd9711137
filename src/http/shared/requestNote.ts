import { Context } from "effect"

/**
 * What a request learns on its way in that the outermost middleware (envelope.ts) needs on its way out:
 * the API key that authenticated it, for the request log (docs/webhooks.md "Request log"). One per
 * request, written by KeyAuthentication, read once the response is known.
 */
export class RequestNote extends Context.Tag("RequestNote")<
  RequestNote,
  { key: { readonly accountId: import("../../domain/ids.ts").AccountId; readonly keyId: string } | undefined }
>() {}
