import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "./api.ts"
import { useTexts } from "./i18n.ts"

/** Shared pieces: a page frame, an error line, a table that stacks into cards at 360 px, a dialog. */

/** The first page of a visit keeps the browser's focus order (the skip link first); later ones move it. */
let navigated = false

export const Page = (props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) => {
  const heading = useRef<HTMLHeadingElement>(null)
  // Keyboard and screen-reader users land on the new page's title after a navigation.
  useEffect(() => {
    document.title = `${props.title} · Gateway`
    if (navigated) heading.current?.focus()
    navigated = true
  }, [props.title])
  return (
    <section aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  )
}

export const Problem = (props: { error: unknown }) => {
  const t = useTexts()
  if (props.error === undefined || props.error === null) return null
  const e = props.error
  return (
    <div class="problem" role="alert">
      <strong>{t.error}:</strong> {e instanceof Error ? e.message : String(e)}
      {e instanceof ApiError && e.fields.length > 0 ? (
        <ul>
          {e.fields.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

export interface Column<T> {
  label: string
  cell: (row: T) => ComponentChildren
  numeric?: boolean
}

export const Table = <T,>(props: {
  caption: string
  rows: ReadonlyArray<T>
  columns: ReadonlyArray<Column<T>>
  rowKey: (row: T) => string
}) => {
  const t = useTexts()
  if (props.rows.length === 0) return <p class="muted">{t.none}</p>
  return (
    <table class="data">
      <caption class="sr-only">{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th scope="col" class={c.numeric ? "num" : undefined} key={c.label}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={props.rowKey(row)}>
            {props.columns.map((c) => (
              <td data-label={c.label} class={c.numeric ? "num" : undefined} key={c.label}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** A modal confirmation on the native <dialog>: focus trapped and Escape handled by the browser. */
export const Confirm = (props: {
  open: boolean
  title: string
  children?: ComponentChildren
  onConfirm: () => void
  onCancel: () => void
  busy?: boolean
  /** Its title's id: each dialog of a page needs its own. */
  titleId?: string
}) => {
  const t = useTexts()
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = props.titleId ?? "confirm-title"
  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (props.open && !d.open) d.showModal()
    if (!props.open && d.open) d.close()
  }, [props.open])
  return (
    <dialog ref={ref} aria-labelledby={titleId} onCancel={props.onCancel} onClose={props.onCancel}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onCancel}>
          {t.cancel}
        </button>
        <button type="button" onClick={props.onConfirm} disabled={props.busy}>
          {t.confirm}
        </button>
      </div>
    </dialog>
  )
}

/** The state of a form's submission: busy, its error, done. */
export const useAction = <A extends Array<unknown>, R>(action: (...args: A) => Promise<R>) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(undefined)
  const [result, setResult] = useState<R | undefined>(undefined)
  const run = async (...args: A) => {
    setBusy(true)
    setError(undefined)
    try {
      const r = await action(...args)
      setResult(r)
      return r
    } catch (e) {
      setError(e)
      return undefined
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, result, run, setResult }
}

export const Field = (props: { id: string; label: string; children: ComponentChildren }) => (
  <div class="field">
    <label for={props.id}>{props.label}</label>
    {props.children}
  </div>
)
