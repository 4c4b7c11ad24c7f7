/** ECharts, tree-shaken: only the charts and components the dashboard draws. */
import * as echarts from 'echarts/core';
import { BarChart, LineChart, MapChart } from 'echarts/charts';
import { AriaComponent, GridComponent, LegendComponent, TooltipComponent, VisualMapComponent, DataZoomComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([BarChart, LineChart, MapChart, AriaComponent, GridComponent, LegendComponent, TooltipComponent, VisualMapComponent, DataZoomComponent, CanvasRenderer]);

export { echarts };
export type { EChartsType } from 'echarts/core';
