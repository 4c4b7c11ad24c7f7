/**
 * ECharts, tree-shaken: `echarts/core` with only the charts and components the dashboard draws. The map
 * chart is registered here with the others because a chart instance takes the data processors and visuals
 * registered before its init (registering MapChart later broke the map); only the map data (world.ts)
 * loads on demand, and the map panel registers it here. No AriaComponent: a chart's words for a screen reader
 * are the dashboard's own (chart-text.ts), not ECharts' generated description.
 */
import * as echarts from 'echarts/core';
import { BarChart, LineChart, MapChart } from 'echarts/charts';
import {
  GridComponent,
  LegendPlainComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([
  BarChart,
  LineChart,
  MapChart,
  GridComponent,
  LegendPlainComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
  CanvasRenderer,
]);

export { echarts };
export type { EChartsType } from 'echarts/core';
