import { useEffect, useRef } from "preact/hooks"
import uPlot from "uplot"
import { useTexts } from "./i18n.ts"

/**
 * A line chart of one series per day (uPlot: small, canvas, no inline <style>), sized to its box.
 * The canvas is described by its label and the same numbers are in a table below it for screen readers.
 */
export const DayChart = (props: {
  label: string
  days: ReadonlyArray<string>
  values: ReadonlyArray<number | null>
  format: (v: number) => string
  /** A fixed value range (the approval rate's 0 to 1); else from zero to the data's top. */
  range?: [number, number]
}) => {
  const t = useTexts()
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (!el || props.days.length === 0) return
    const xs = props.days.map((d) => Date.parse(`${d}T12:00:00-03:00`) / 1000)
    const width = () => Math.max(240, el.clientWidth)
    const plot = new uPlot(
      {
        width: width(),
        height: 200,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => props.range ?? [0, max > 0 ? max * 1.1 : 1] }
        },
        axes: [
          { stroke: "#3d4350" },
          { stroke: "#3d4350", size: 90, values: (_u, ticks) => ticks.map((v) => props.format(v)) }
        ],
        series: [
          {},
          {
            label: props.label,
            stroke: "#1b5fd6",
            width: 2,
            fill: "rgba(27,95,214,0.08)",
            // A day alone between days without data is a point, not an invisible line.
            points: { show: true, size: 6 }
          }
        ]
      },
      [xs, props.values as Array<number | null>],
      el
    )
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 200 }))
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [props.days, props.values, props.label, props.format, props.range])
  return (
    <figure class="chart">
      <figcaption>{props.label}</figcaption>
      <div ref={box} role="img" aria-label={props.label} class="chart-box" />
      <details>
        <summary>{t.chartData}</summary>
        <table class="data compact">
          <caption class="sr-only">{props.label}</caption>
          <thead>
            <tr>
              <th scope="col">{t.day}</th>
              <th scope="col" class="num">
                {props.label}
              </th>
            </tr>
          </thead>
          <tbody>
            {props.days.map((d, i) => (
              <tr key={d}>
                <td data-label={t.day}>{d}</td>
                <td data-label={props.label} class="num">
                  {props.values[i] === null || props.values[i] === undefined ? "—" : props.format(props.values[i]!)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  )
}
