/**
 * Term lists for the sample data. Realistic enough to read, and holding the spellings the spec's data carries in
 * the wild: non-ASCII symbols and names (µmol/m²·s, Ångström, Zürich) and punctuation that needs JSON escaping.
 * Entry 0 of a list is always used (records >= 1), so the non-ASCII cases sit at the front.
 */

export const TERMS: Readonly<Record<string, readonly string[]>> = {
  actioncategories: [
    'Device calibration',
    'Maintenance',
    'Deployment',
    'Software update',
    'Inspection',
    'Cleaning',
    'Repair',
    'Parameter change',
  ],
  actiontypes: [
    'Sensor calibration',
    'Battery replacement',
    'Firmware upgrade',
    'Visual inspection',
    'Filter cleaning',
    'Cable repair',
    'Mounting',
    'Recovery',
    'Zero-point adjustment',
    'Data download',
  ],
  aggregationtypes: [
    'Average',
    'Sum',
    'Maximum',
    'Minimum',
    'Median',
    'Standard deviation',
    'Instantaneous',
    'Cumulative',
  ],
  compartments: ['Atmosphere', 'Biosphere', 'Hydrosphere', 'Pedosphere', 'Cryosphere', 'Lithosphere', 'Anthroposphere'],
  contactroles: [
    'Principal investigator',
    'Owner',
    'Custodian',
    'Point of contact',
    'Technician',
    'Data manager',
    'Originator',
  ],
  countries: [
    'Côte d’Ivoire',
    'Türkiye',
    'Åland Islands',
    'Réunion',
    'Germany',
    'Switzerland',
    'Norway',
    'Iceland',
    'France',
    'Denmark',
  ],
  equipmentstatus: ['In use', 'In warehouse', 'Under repair', 'Blocked', 'Scrapped', 'Lent out', 'Lost'],
  equipmenttypes: [
    'Data logger',
    'Pyranometer',
    'Anemometer',
    'Rain gauge',
    'Thermometer',
    'Barometer',
    'Hygrometer',
    'Ceilometer',
    'Disdrometer',
    'Lysimeter',
  ],
  licenses: ['CC BY 4.0', 'CC BY-SA 4.0', 'CC0 1.0', 'MIT', 'Apache-2.0', 'GPL-3.0-only', 'ODbL-1.0', 'Proprietary'],
  manufacturers: [
    'Zürich Instruments AG',
    'Campbell Scientific',
    'Vaisala',
    'Kipp & Zonen',
    'Lufft',
    'Thies Clima',
    'Sommer Messtechnik',
    'OTT HydroMet',
    'Hukseflux',
  ],
  measuredquantities: [
    'Photosynthetically active radiation',
    'Air temperature',
    'Relative humidity',
    'Wind speed',
    'Wind direction',
    'Precipitation',
    'Soil moisture',
    'Global radiation',
    'Atmospheric pressure',
    'Water level',
  ],
  platformtypes: ['Weather station', 'Buoy', 'Mast', 'Eddy covariance tower', 'Glider', 'Ship', 'Aircraft', 'Borehole'],
  samplingmedia: ['Air', 'Water', 'Soil', 'Snow', 'Ice', 'Sediment', 'Biota', 'Groundwater'],
  sitetypes: [
    'Field site',
    'Laboratory',
    'Urban site',
    'Forest plot',
    'Lake',
    'River section',
    'Glacier',
    'Coastal site',
  ],
  siteusages: ['Agriculture', 'Forestry', 'Grassland', 'Urban', 'Wetland', 'Mining', 'Protected area', 'Research'],
  softwaretypes: ['Firmware', 'Operating system', 'Data acquisition software', 'Processing software', 'Driver'],
  units: ['µmol/m²·s', 'Ångström', '°C', 'm/s', 'W/m²', 'hPa', 'mm', '%', 'kg/m³', 'mol/mol', 'K', 'degree'],
};

/** Long names of the units above, used as their definitions. */
export const UNIT_NAMES: Readonly<Record<string, string>> = {
  'µmol/m²·s': 'Micromole per square metre per second',
  Ångström: 'Ångström, 10⁻¹⁰ metre',
  '°C': 'Degree Celsius',
  'm/s': 'Metre per second',
  'W/m²': 'Watt per square metre',
  hPa: 'Hectopascal',
  mm: 'Millimetre',
  '%': 'Percent',
  'kg/m³': 'Kilogram per cubic metre',
  'mol/mol': 'Mole per mole',
  K: 'Kelvin',
  degree: 'Degree of arc',
};

export const PROVENANCE_NAMES: readonly string[] = [
  'NERC Vocabulary Server',
  'QUDT',
  'WMO Codes Registry',
  'GCMD Science Keywords',
  'SPDX License List',
  'Local definition',
  'Wikipedia',
  'ISO 19115',
];

export const COMMUNITY_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['Zürich Urban Climate', 'ZUC'],
  ['Arctic Observatories', 'ARCOBS'],
  ['TERENO', 'TERENO'],
  ['Coastal Ocean Sensors', 'COS'],
  ['Forêt & Sol', 'F&S'],
  ['Hydrology Field Network', 'HFN'],
  ['Atmospheric Chemistry', 'ATMCHEM'],
  ['Polar Ship Operations', 'PSO'],
];

export const CATEGORIES: readonly string[] = ['Physical', 'Chemical', 'Biological', 'Administrative', 'Technical'];

export const REQUESTERS: readonly string[] = ['jana.novak', 'o.eriksen', 'mueller-lab', 'p.dubois', 'field.team'];

/** The `i`-th term of `list`; past its end, terms repeat with a number so every term of a collection is unique. */
export function termAt(list: readonly string[], i: number): string {
  const base = list[i % list.length] ?? `Term`;
  const round = Math.floor(i / list.length);
  return round === 0 ? base : `${base} ${round + 1}`;
}
