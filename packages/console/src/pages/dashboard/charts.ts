/**
 * The dashboard's two charts as ECharts options, built from the `getDashboard` series: fires
 * per day stacked by result, and the fire lateness p50/p99 per day. Type-only imports of the
 * chart module, so building an option does not load ECharts.
 */
import type { TFunction } from 'i18next';
import type { Dashboard } from '../../api/types';
import type { ChartOption } from '../../components/Chart';

type Day = Dashboard['series'][number];

/** The results a day's fires are counted by, in stacking order (bottom first). */
export const RESULTS = [
  'succeeded',
  'failed',
  'timeout',
  'killed',
  'skipped',
  'dispatchFailed',
  'running',
] as const satisfies readonly (keyof Day)[];
export type Result = (typeof RESULTS)[number];

export const RESULT_COLORS: Record<Result, string> = {
  succeeded: '#52c41a',
  failed: '#ff4d4f',
  timeout: '#fa8c16',
  killed: '#722ed1',
  skipped: '#bfbfbf',
  dispatchFailed: '#eb2f96',
  running: '#1677ff',
};

/** A duration in milliseconds as people read it: 850 ms, 1.2 s, 3.5 min. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** The axis label of a day: MM-DD (the year is the same for every bar but the rare January). */
function dayLabel(day: string): string {
  return day.slice(5);
}

// Room above the plot for a legend that wraps onto a second line on a narrow screen.
const GRID = { left: 8, right: 16, top: 72, bottom: 8 };
const LEGEND = { top: 0, itemWidth: 14, itemHeight: 10, itemGap: 10 };

export function firesPerDayOption(series: Day[], t: TFunction<'dashboard'>): ChartOption {
  return {
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: LEGEND,
    grid: GRID,
    xAxis: { type: 'category', data: series.map((day) => dayLabel(day.day)) },
    yAxis: { type: 'value', minInterval: 1 },
    series: RESULTS.map((result) => ({
      type: 'bar',
      name: t(`result.${result}`),
      stack: 'fires',
      barMaxWidth: 32,
      emphasis: { focus: 'series' },
      itemStyle: { color: RESULT_COLORS[result] },
      data: series.map((day) => day[result]),
    })),
  };
}

export function latenessOption(series: Day[], t: TFunction<'dashboard'>): ChartOption {
  const line = (name: string, color: string, values: (number | null)[]) => ({
    type: 'line' as const,
    name,
    // A day without fires has no lateness: a gap, not a zero.
    data: values,
    connectNulls: false,
    showSymbol: true,
    itemStyle: { color },
    lineStyle: { color },
  });
  return {
    tooltip: {
      trigger: 'axis',
      valueFormatter: (value) => formatDuration(typeof value === 'number' ? value : null),
    },
    legend: LEGEND,
    grid: GRID,
    xAxis: { type: 'category', boundaryGap: false, data: series.map((day) => dayLabel(day.day)) },
    // Lateness is counted in whole ms: no ticks between them (they would print as the same label).
    yAxis: {
      type: 'value',
      minInterval: 1,
      axisLabel: { formatter: (value: number) => formatDuration(value) },
    },
    series: [
      line(
        t('p50'),
        '#1677ff',
        series.map((day) => day.latenessP50Ms),
      ),
      line(
        t('p99'),
        '#fa8c16',
        series.map((day) => day.latenessP99Ms),
      ),
    ],
  };
}
