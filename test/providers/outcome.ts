import { Cause, Exit, Option } from "effect"

/** An exit as the kits assert on it: "success", the failure's tag, or "defect" (a port never dies). */
export const outcome = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isSuccess(exit)
    ? "success"
    : Option.match(Cause.failureOption(exit.cause), {
        onNone: () => "defect",
        onSome: (e) => (e as { _tag: string })._tag
      })
