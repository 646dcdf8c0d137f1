/**
 * A small ECharts wrapper: the chart is created when the element mounts, takes each new option
 * as a whole, follows its container's size and is disposed on unmount. Only the chart types and
 * components the console draws are registered, so the chart chunk stays small; load this module
 * lazily (`lazy(() => import('./Chart'))`) so a page shows its figures before the charts arrive.
 */
import { BarChart, type BarSeriesOption, LineChart, type LineSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  type GridComponentOption,
  LegendComponent,
  type LegendComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
} from 'echarts/components';
import { type ComposeOption, type EChartsType, init, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';
import { prefersReducedMotion } from './reducedMotion';

use([BarChart, LineChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

/** The options this wrapper can draw: bar and line series on a grid, with legend and tooltip. */
export type ChartOption = ComposeOption<
  BarSeriesOption | LineSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption
>;

export interface ChartProps {
  option: ChartOption;
  /** CSS height of the chart; the width follows the container. Default 300. */
  height?: number | string;
  /** What the chart shows, read out by screen readers (the canvas itself says nothing). */
  label: string;
  testId?: string;
}

export default function Chart({ option, height = 300, label, testId }: ChartProps) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | undefined>(undefined);

  useEffect(() => {
    const dom = element.current;
    if (dom === null) return;
    const instance = init(dom, undefined, { renderer: 'canvas' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(dom);
    return () => {
      observer.disconnect();
      chart.current = undefined;
      instance.dispose();
    };
  }, []);

  useEffect(() => {
    // notMerge: a series that disappeared from the option must disappear from the chart.
    chart.current?.setOption({ animation: !prefersReducedMotion(), ...option }, { notMerge: true });
  }, [option]);

  return (
    <div ref={element} role="img" aria-label={label} data-testid={testId} style={{ width: '100%', height }} />
  );
}
