import { Layer } from "effect"
import { EventPayloads } from "../../ports/EventPayloads.ts"
import { v1EventPayload } from "../v1/events.ts"
import { v2EventPayload } from "../v2/events.ts"

/** Each event in the words of the interface that created its transaction (CONTRACT-v1 §5). */
export const EventPayloadsLive = Layer.succeed(
  EventPayloads,
  EventPayloads.of({
    render: (event) => {
      switch (event.origin) {
        case "v2":
          return JSON.stringify(v2EventPayload(event))
        case "v1":
          return JSON.stringify(v1EventPayload(event))
      }
    }
  })
)
