import { Layer } from "effect"
import { EventPayloads } from "../../ports/EventPayloads.ts"
import { v1EventPayload } from "../v1/events.ts"
import { v2EventPayload } from "../v2/events.ts"
import { livemodeOf } from "./livemode.ts"

/** Each event in the words of the interface that created its transaction (CONTRACT-v1 §5). */
export const EventPayloadsLive = Layer.succeed(
  EventPayloads,
  EventPayloads.of({
    // A live event says `livemode: true`; a test event's body is what it was before modes (livemode.ts),
    // frozen bodies included (withdrawals, webhook.test: docs/providers.md "Test and live modes"). A test
    // tenant's frozen body goes out as stored, byte for byte.
    render: (event, live) => {
      if ("_tag" in event) return live ? JSON.stringify({ ...JSON.parse(event.body), ...livemodeOf(live) }) : event.body
      switch (event.origin) {
        case "v2":
          return JSON.stringify({ ...v2EventPayload(event), ...livemodeOf(live) })
        case "v1":
          return JSON.stringify({ ...v1EventPayload(event), ...livemodeOf(live) })
      }
    }
  })
)
