/**
 * The world map for the choropleth: Natural Earth 1:110m countries from world-atlas (TopoJSON, ISO 3166
 * numeric ids) converted to GeoJSON with topojson-client, keyed by alpha-2 code as the API answers.
 * Loaded on its own (`import('./world')`): the map data is a seventh of the dashboard's code, and every
 * other panel draws without it. The map panel registers it with the ECharts the charts were made with
 * (panel.ts): a module of its own importing ECharts could get another copy of it after a failed fetch.
 */
import { feature } from 'topojson-client';
import countries110m from 'world-atlas/countries-110m.json';
// Only the code table (alpha-2, alpha-3, numeric): the names come with the page (countries.ts).
import codes from 'i18n-iso-countries/codes.json';

export const MAP_NAME = 'world';

export const WORLD = worldMap();

function worldMap() {
  const alpha2ByNumeric = new Map(codes.map(([alpha2, , numeric]) => [numeric, alpha2]));
  const topo = countries110m as unknown as Parameters<typeof feature>[0];
  const geo = feature(topo, topo.objects.countries as never) as unknown as {
    features: { type: 'Feature'; id?: string | number; properties?: { name?: string }; geometry: unknown }[];
  };
  const features = geo.features
    .map((f) => {
      const alpha2 = f.id !== undefined ? alpha2ByNumeric.get(String(f.id).padStart(3, '0')) : undefined;
      // Unrecognised territories (e.g. N. Cyprus, Somaliland) keep their name; they never match data.
      return { ...f, properties: { name: alpha2 ?? `x-${f.properties?.name ?? ''}` } };
    })
    // Antarctica takes a sixth of the map and has no users.
    .filter((f) => f.properties.name !== 'AQ');
  for (const f of features) unwrapAntimeridian(f.geometry as Geometry);
  return { type: 'FeatureCollection' as const, features };
}

type Ring = [number, number][];
type Geometry =
  | { type: 'Polygon'; coordinates: Ring[] }
  | { type: 'MultiPolygon'; coordinates: Ring[][] }
  | { type: string; coordinates: unknown };

/**
 * Rings that cross the antimeridian (Russia's Chukotka, Fiji) jump from +180 to −180 and, drawn on a
 * flat projection, become stripes across the whole map: move their western points east of 180.
 */
function unwrapAntimeridian(g: Geometry): void {
  const polygons =
    g.type === 'Polygon' ? [g.coordinates as Ring[]] : g.type === 'MultiPolygon' ? (g.coordinates as Ring[][]) : [];
  for (const polygon of polygons) {
    for (const ring of polygon) {
      const crosses = ring.some(([a], i) => i > 0 && Math.abs(a - ring[i - 1]![0]) > 180);
      if (crosses) for (const p of ring) if (p[0] < 0) p[0] += 360;
    }
  }
}
