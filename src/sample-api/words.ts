/**
 * The sample data's vocabularies: terms with their definitions, written as a real controlled vocabulary of
 * environmental sensing would hold them, and the spellings such data carries in the wild: non-ASCII symbols and
 * names (µmol/m²·s, Å, Zürich, Côte d’Ivoire) and punctuation that needs JSON escaping. Entry 0 of a list is always
 * used (records >= 1), so the non-ASCII cases sit at the front. Each list is longer than the sample API's default
 * size, so terms repeat with a number only in larger data sets.
 */

/** A term and its definition. */
export type Entry = readonly [term: string, definition: string];

/**
 * Measured quantities, each with the unit it is measured in: entry i of `MEASURED_QUANTITIES` is measured in entry i
 * of `UNITS`, which is what the sample's measured quantity units pair.
 */
const QUANTITIES_AND_UNITS: ReadonlyArray<readonly [quantity: Entry, unit: Entry]> = [
  [
    ['Photosynthetically active radiation', 'Photon flux density of the radiation between 400 and 700 nm.'],
    ['µmol/m²·s', 'Micromole per square metre per second'],
  ],
  [
    ['Wavelength', 'Distance between successive crests of a wave of light.'],
    ['Å', 'Ångström, 10⁻¹⁰ metre'],
  ],
  [
    ['Air temperature', 'Temperature of the air, measured in a shelter 2 m above the ground.'],
    ['°C', 'Degree Celsius'],
  ],
  [
    ['Wind speed', 'Speed of the horizontal movement of the air.'],
    ['m/s', 'Metre per second'],
  ],
  [
    ['Global radiation', 'Solar radiation received on a horizontal surface, direct and diffuse.'],
    ['W/m²', 'Watt per square metre'],
  ],
  [
    ['Atmospheric pressure', 'Pressure exerted by the weight of the air above.'],
    ['hPa', 'Hectopascal'],
  ],
  [
    ['Precipitation', 'Depth of water from rain, snow and hail over a period.'],
    ['mm', 'Millimetre'],
  ],
  [
    ['Relative humidity', 'Water vapour in the air as a share of saturation at the same temperature.'],
    ['%', 'Percent'],
  ],
  [
    ['Air density', 'Mass of air per unit volume.'],
    ['kg/m³', 'Kilogram per cubic metre'],
  ],
  [
    ['Carbon dioxide mole fraction', 'Amount of CO₂ per amount of dry air.'],
    ['µmol/mol', 'Micromole per mole'],
  ],
  [
    ['Surface temperature', 'Temperature of the ground or water surface, from its infrared radiation.'],
    ['K', 'Kelvin'],
  ],
  [
    ['Wind direction', 'Direction the wind blows from, clockwise from north.'],
    ['°', 'Degree of arc'],
  ],
  [
    ['Water level', 'Height of the water surface above a reference level.'],
    ['m', 'Metre'],
  ],
  [
    ['Soil moisture', 'Volume of water per volume of soil.'],
    ['m³/m³', 'Cubic metre per cubic metre'],
  ],
  [
    ['Electrical conductivity', 'Ability of water to conduct electricity, a measure of its dissolved salts.'],
    ['mS/cm', 'Millisiemens per centimetre'],
  ],
  [
    ['Dissolved oxygen', 'Concentration of oxygen dissolved in water.'],
    ['mg/L', 'Milligram per litre'],
  ],
  [
    ['Turbidity', 'Cloudiness of water caused by suspended particles.'],
    ['NTU', 'Nephelometric turbidity unit'],
  ],
  [
    ['Snow depth', 'Depth of the snow cover above the ground.'],
    ['cm', 'Centimetre'],
  ],
  [
    ['PM2.5 mass concentration', 'Mass of particles under 2.5 µm in diameter per volume of air.'],
    ['µg/m³', 'Microgram per cubic metre'],
  ],
  [
    ['Discharge', 'Volume of water flowing through a river section per second.'],
    ['m³/s', 'Cubic metre per second'],
  ],
];

/** ISO 3166-1 names and alpha-2 codes. */
const COUNTRIES: ReadonlyArray<readonly [string, string]> = [
  ['Côte d’Ivoire', 'CI'],
  ['Türkiye', 'TR'],
  ['Åland Islands', 'AX'],
  ['Réunion', 'RE'],
  ['Germany', 'DE'],
  ['Switzerland', 'CH'],
  ['Norway', 'NO'],
  ['Iceland', 'IS'],
  ['France', 'FR'],
  ['Denmark', 'DK'],
  ['Austria', 'AT'],
  ['Netherlands', 'NL'],
  ['Sweden', 'SE'],
  ['Finland', 'FI'],
  ['Poland', 'PL'],
  ['Czechia', 'CZ'],
];

/** SPDX license identifiers with their full names. */
const LICENSES: readonly Entry[] = [
  ['CC-BY-4.0', 'Creative Commons Attribution 4.0 International'],
  ['CC-BY-SA-4.0', 'Creative Commons Attribution Share Alike 4.0 International'],
  ['CC0-1.0', 'Creative Commons Zero v1.0 Universal'],
  ['MIT', 'MIT License'],
  ['Apache-2.0', 'Apache License 2.0'],
  ['GPL-3.0-only', 'GNU General Public License v3.0 only'],
  ['ODbL-1.0', 'Open Data Commons Open Database License v1.0'],
  ['CC-BY-NC-4.0', 'Creative Commons Attribution Non Commercial 4.0 International'],
  ['BSD-3-Clause', 'BSD 3-Clause "New" or "Revised" License'],
  ['EUPL-1.2', 'European Union Public License 1.2'],
  ['DL-DE-BY-2.0', 'Data licence Germany – attribution – version 2.0'],
  ['PDDL-1.0', 'Open Data Commons Public Domain Dedication & License 1.0'],
  ['ODC-By-1.0', 'Open Data Commons Attribution License v1.0'],
  ['LGPL-3.0-only', 'GNU Lesser General Public License v3.0 only'],
  ['MPL-2.0', 'Mozilla Public License 2.0'],
  ['CC-BY-ND-4.0', 'Creative Commons Attribution No Derivatives 4.0 International'],
];

export const VOCABULARIES: Readonly<Record<string, readonly Entry[]>> = {
  actioncategories: [
    ['Device calibration', 'Adjusting a device against a reference so that its readings are traceable.'],
    ['Maintenance', 'Routine work that keeps a device or platform in working order.'],
    ['Deployment', 'Installing a device or platform at a site and starting its measurements.'],
    ['Software update', 'Installing a new version of the software a device runs.'],
    ['Inspection', 'Checking the condition of a device or platform.'],
    ['Cleaning', 'Removing dirt, dust, snow or biofouling from a device.'],
    ['Repair', 'Restoring a faulty device or platform to working order.'],
    ['Parameter change', 'Changing a setting of a device, such as its sampling interval.'],
    ['Recovery', 'Removing a device or platform from its site at the end of a deployment.'],
    ['Data retrieval', 'Copying the recorded data from a device.'],
    ['Power supply', 'Work on the batteries, solar panels and cables that power a device.'],
    ['Site visit', 'A visit to a site that involves no work on its devices.'],
    ['Decommissioning', 'Taking a device out of service for good.'],
    ['Transport', 'Moving a device between a store, a laboratory and a site.'],
    ['Quality control', 'Checking measurements against limits, neighbours or a reference.'],
    ['Configuration', 'Setting up a device before its first deployment.'],
  ],
  actiontypes: [
    ['Sensor calibration', 'Calibrating one sensor against a reference instrument.'],
    ['Battery replacement', 'Replacing the battery that powers a device.'],
    ['Firmware upgrade', 'Installing a newer firmware version on a device.'],
    ['Visual inspection', 'Looking a device over for damage, dirt and loose parts.'],
    ['Filter cleaning', 'Cleaning or replacing the air or water filter of a device.'],
    ['Cable repair', 'Repairing or replacing a damaged signal or power cable.'],
    ['Mounting', 'Fixing a device to its mast, frame or housing.'],
    ['Dismounting', 'Removing a device from its mast, frame or housing.'],
    ['Zero-point adjustment', 'Setting the reading a device gives at zero input.'],
    ['Data download', 'Downloading the recorded data from a data logger.'],
    ['Desiccant replacement', 'Replacing the drying agent that keeps a housing dry.'],
    ['Levelling', 'Adjusting a device so that it stands level.'],
    ['Clock synchronisation', 'Setting the clock of a data logger to UTC.'],
    ['Antenna alignment', 'Pointing the antenna of a device at its base station.'],
    ['Solar panel cleaning', 'Removing dirt and snow from a solar panel.'],
    ['Sensor exchange', 'Replacing a sensor with a calibrated one of the same type.'],
  ],
  aggregationtypes: [
    ['Average', 'The arithmetic mean of the values in the interval.'],
    ['Sum', 'The sum of the values in the interval.'],
    ['Maximum', 'The largest value in the interval.'],
    ['Minimum', 'The smallest value in the interval.'],
    ['Median', 'The middle value of the sorted values in the interval.'],
    ['Standard deviation', 'The spread of the values around their mean in the interval.'],
    ['Instantaneous', 'A single value at the sampling time, not aggregated.'],
    ['Cumulative', 'The running total since the start of the measurement.'],
    ['Variance', 'The mean squared difference of the values from their mean.'],
    ['Mode', 'The most frequent value in the interval.'],
    ['Range', 'The difference between the largest and the smallest value in the interval.'],
    ['Count', 'The number of values in the interval.'],
    ['Vector average', 'The mean of directions and speeds taken as vectors, as for wind.'],
    ['Root mean square', 'The square root of the mean of the squared values.'],
    ['95th percentile', 'The value below which 95 % of the values in the interval lie.'],
    ['Integral', 'The values integrated over the interval, such as a daily radiation sum.'],
  ],
  compartments: [
    ['Atmosphere', 'The layer of gases surrounding the Earth.'],
    ['Biosphere', 'All living organisms and the environments they live in.'],
    ['Hydrosphere', 'All water on, under and above the surface of the Earth.'],
    ['Pedosphere', 'The soil layer of the surface of the Earth.'],
    ['Cryosphere', 'The frozen water of the Earth: snow, ice and permafrost.'],
    ['Lithosphere', 'The rigid outer shell of the Earth: the crust and the upper mantle.'],
    ['Anthroposphere', 'The part of the environment made or changed by people.'],
    ['Troposphere', 'The lowest layer of the atmosphere, where weather happens.'],
    ['Stratosphere', 'The layer of the atmosphere above the troposphere, which holds the ozone layer.'],
    ['Vadose zone', 'The unsaturated ground between the surface and the water table.'],
    ['Groundwater', 'Water held in the saturated zone below the water table.'],
    ['Surface water', 'Water in rivers, lakes and reservoirs.'],
    ['Ocean', 'The connected body of salt water that covers most of the Earth.'],
    ['Sea ice', 'Frozen sea water floating on the ocean.'],
    ['Permafrost', 'Ground that stays frozen for at least two years in a row.'],
    ['Vegetation canopy', 'The upper layer of plants, formed by their crowns.'],
  ],
  contactroles: [
    ['Principal investigator', 'The person who leads the scientific work a device serves.'],
    ['Owner', 'The person or organisation that owns the device or platform.'],
    ['Custodian', 'The person or organisation that takes care of the device and its data.'],
    ['Point of contact', 'The person to ask about the device or platform.'],
    ['Technician', 'The person who installs and maintains the device in the field.'],
    ['Data manager', 'The person who looks after the data the device records.'],
    ['Originator', 'The person or organisation that created the resource.'],
    ['Author', 'A person who wrote the resource.'],
    ['Publisher', 'The organisation that publishes the resource.'],
    ['Distributor', 'The organisation that distributes the resource.'],
    ['Funder', 'The organisation that pays for the work.'],
    ['Operator', 'The person or organisation that runs the platform day to day.'],
    ['Project leader', 'The person who leads the project the device belongs to.'],
    ['Reviewer', 'A person who checks the metadata before it is published.'],
    ['User', 'A person or organisation that uses the resource.'],
    ['Resource provider', 'The organisation that provides the resource.'],
  ],
  countries: COUNTRIES.map(([name, code]): Entry => [name, `ISO 3166-1 alpha-2 code ${code}.`]),
  equipmentstatus: [
    ['In use', 'The device is deployed and measuring.'],
    ['In warehouse', 'The device is in store, ready to be deployed.'],
    ['Under repair', 'The device is at the manufacturer or in the workshop.'],
    ['Blocked', 'The device must not be used until a fault is cleared.'],
    ['Scrapped', 'The device has been disposed of.'],
    ['Lent out', 'The device is on loan to another institute.'],
    ['Lost', 'The device cannot be found.'],
    ['In calibration', 'The device is being calibrated.'],
    ['Reserved', 'The device is set aside for a planned deployment.'],
    ['In transit', 'The device is on its way to or from a site.'],
    ['Sold', 'The device has been sold.'],
    ['Retired', 'The device is kept but no longer used.'],
    ['Defective', 'The device has a known fault and is not measuring.'],
    ['On order', 'The device is ordered and not yet delivered.'],
    ['Testing', 'The device is being tested in the laboratory.'],
    ['Unknown', 'The status of the device is not known.'],
  ],
  equipmenttypes: [
    ['Data logger', 'A device that records the signals of sensors over time.'],
    ['Pyranometer', 'A radiometer that measures the global solar radiation on a plane.'],
    ['Anemometer', 'A device that measures wind speed.'],
    ['Rain gauge', 'A device that measures the amount of precipitation.'],
    ['Thermometer', 'A device that measures temperature.'],
    ['Barometer', 'A device that measures atmospheric pressure.'],
    ['Hygrometer', 'A device that measures the humidity of the air.'],
    ['Ceilometer', 'A lidar that measures the height of the cloud base.'],
    ['Disdrometer', 'A device that measures the size and speed of falling drops.'],
    ['Lysimeter', 'A soil-filled vessel that measures drainage and evapotranspiration.'],
    ['Pyrgeometer', 'A radiometer that measures long-wave infrared radiation.'],
    ['Sonic anemometer', 'A device that measures the wind vector from the travel time of sound.'],
    ['Gas analyser', 'A device that measures the concentration of gases such as CO₂ and H₂O.'],
    ['Soil moisture probe', 'A device that measures the water content of the soil.'],
    ['Pressure transducer', 'A device that measures water pressure, from which the water level follows.'],
    ['Quantum sensor', 'A device that measures photosynthetically active radiation.'],
  ],
  licenses: LICENSES,
  manufacturers: [
    ['Zürich Instruments AG', 'Maker of lock-in amplifiers and signal analysers, Zürich.'],
    ['Campbell Scientific', 'Maker of data loggers and measurement systems, Logan, Utah.'],
    ['Vaisala', 'Maker of weather, humidity and gas sensors, Vantaa.'],
    ['Kipp & Zonen', 'Maker of pyranometers and other radiometers, Delft.'],
    ['Lufft', 'Maker of compact weather sensors and road weather stations, Fellbach.'],
    ['Thies Clima', 'Maker of meteorological instruments, Göttingen.'],
    ['Sommer Messtechnik', 'Maker of snow, water level and discharge sensors, Koblach.'],
    ['OTT HydroMet', 'Maker of hydrological and meteorological instruments, Kempten.'],
    ['Hukseflux', 'Maker of heat flux sensors and radiometers, Delft.'],
    ['LI-COR Biosciences', 'Maker of gas analysers and light sensors, Lincoln, Nebraska.'],
    ['Gill Instruments', 'Maker of ultrasonic anemometers, Lymington.'],
    ['METER Group', 'Maker of soil moisture and water potential sensors, Pullman and Munich.'],
    ['Sea-Bird Scientific', 'Maker of oceanographic sensors, Bellevue, Washington.'],
    ['Teledyne RD Instruments', 'Maker of acoustic Doppler current profilers, Poway, California.'],
    ['Apogee Instruments', 'Maker of radiation and temperature sensors, Logan, Utah.'],
    ['Delta-T Devices', 'Maker of soil and plant science instruments, Cambridge.'],
  ],
  measuredquantities: QUANTITIES_AND_UNITS.map(([quantity]) => quantity),
  platformtypes: [
    ['Weather station', 'A set of meteorological sensors on a common mast or frame.'],
    ['Buoy', 'A floating platform anchored at sea or on a lake.'],
    ['Mast', 'A tall pole that holds sensors at several heights.'],
    ['Eddy covariance tower', 'A tower that measures the exchange of gases between the surface and the air.'],
    ['Glider', 'An autonomous underwater vehicle that moves by changing its buoyancy.'],
    ['Research vessel', 'A ship equipped for measurements at sea.'],
    ['Aircraft', 'A crewed aeroplane or helicopter carrying instruments.'],
    ['Borehole', 'A narrow shaft drilled into the ground for measurements at depth.'],
    ['Mooring', 'A line of instruments anchored to the sea floor.'],
    ['Uncrewed aerial vehicle', 'A drone carrying instruments.'],
    ['Satellite', 'An orbiting platform for remote sensing.'],
    ['River gauging station', 'A station that measures the water level and discharge of a river.'],
    ['Weather balloon', 'A balloon that carries a radiosonde through the atmosphere.'],
    ['Drifting ice station', 'A camp on sea ice that drifts with it.'],
    ['Autonomous surface vehicle', 'An uncrewed boat that carries instruments.'],
    ['Soil observatory', 'A set of soil sensors at several depths in one profile.'],
  ],
  samplingmedia: [
    ['Air', 'The gases of the atmosphere near the ground.'],
    ['Water', 'Liquid water of any origin.'],
    ['Soil', 'The upper layer of the ground, where plants grow.'],
    ['Snow', 'Frozen precipitation on the ground.'],
    ['Ice', 'Frozen water of glaciers, lakes and the sea.'],
    ['Sediment', 'Particles settled at the bottom of a body of water.'],
    ['Biota', 'Living organisms and their tissue.'],
    ['Groundwater', 'Water held in the saturated zone below the water table.'],
    ['Sea water', 'Salt water of the sea.'],
    ['Rainwater', 'Water collected from precipitation.'],
    ['Aerosol', 'Fine solid or liquid particles suspended in the air.'],
    ['Vegetation', 'Plants and their parts, such as leaves.'],
    ['Suspended particulate matter', 'Particles carried in water.'],
    ['Pore water', 'Water held in the pores of soil or sediment.'],
    ['Peat', 'Partly decomposed plant matter that builds up in wetlands.'],
    ['Dust', 'Fine particles deposited from the air.'],
  ],
  sitetypes: [
    ['Field site', 'An outdoor site where measurements are made.'],
    ['Laboratory', 'A room or building for measurements under controlled conditions.'],
    ['Urban site', 'A site in a town or city.'],
    ['Forest plot', 'A marked area of forest.'],
    ['Lake', 'A body of standing fresh water.'],
    ['River section', 'A stretch of a river between two points.'],
    ['Glacier', 'A body of ice that moves under its own weight.'],
    ['Coastal site', 'A site on the coast, between land and sea.'],
    ['Agricultural field', 'A field that is farmed.'],
    ['Grassland plot', 'A marked area of grassland.'],
    ['Peat bog', 'A wetland where peat builds up.'],
    ['Catchment outlet', 'The point where the water of a catchment leaves it.'],
    ['Mountain summit', 'The highest point of a mountain.'],
    ['Estuary', 'The tidal mouth of a river.'],
    ['Open ocean', 'The sea away from the coast.'],
    ['Cave', 'A natural space under the ground.'],
  ],
  siteusages: [
    ['Agriculture', 'Land used to grow crops or keep livestock.'],
    ['Forestry', 'Land used to grow and harvest trees.'],
    ['Grassland', 'Land covered by grasses, mown or grazed.'],
    ['Urban', 'Land covered by buildings, roads and gardens.'],
    ['Wetland', 'Land saturated with water for much of the year.'],
    ['Mining', 'Land used to extract minerals.'],
    ['Protected area', 'Land protected for nature conservation.'],
    ['Research', 'Land set aside for experiments.'],
    ['Pasture', 'Land grazed by livestock.'],
    ['Vineyard', 'Land planted with grapevines.'],
    ['Orchard', 'Land planted with fruit trees.'],
    ['Industrial area', 'Land used by factories and warehouses.'],
    ['Transport infrastructure', 'Land used by roads, railways and airports.'],
    ['Fallow land', 'Farmland left unsown for a season.'],
    ['Recreation', 'Land used for sport and leisure.'],
    ['Water management', 'Land used for reservoirs, dykes and retention basins.'],
  ],
  softwaretypes: [
    ['Firmware', 'Software built into a device that controls its hardware.'],
    ['Operating system', 'Software that manages the hardware of a computer or data logger.'],
    ['Data acquisition software', 'Software that reads sensors and stores their values.'],
    ['Processing software', 'Software that turns raw readings into data products.'],
    ['Driver', 'Software that lets a computer talk to a device.'],
    ['Calibration software', 'Software that computes and applies calibration coefficients.'],
    ['Visualisation software', 'Software that shows data as plots and maps.'],
    ['Configuration tool', 'Software that sets up a device.'],
    ['Quality control software', 'Software that flags suspect values.'],
    ['Data transfer software', 'Software that sends data from a site to a server.'],
    ['Database', 'Software that stores and serves data.'],
    ['Library', 'Code that other software uses.'],
    ['Web service', 'Software that answers requests over the web.'],
    ['Model', 'Software that simulates a process.'],
    ['Script', 'A short program for one task.'],
    ['Bootloader', 'Software that starts a device and loads its firmware.'],
  ],
  units: QUANTITIES_AND_UNITS.map(([, unit]) => unit),
};

/** Each collection's category (the `category` attribute), with the terms that have another. */
const CATEGORIES: Readonly<Record<string, string>> = {
  actioncategories: 'Technical',
  actiontypes: 'Technical',
  aggregationtypes: 'Statistical',
  compartments: 'Environmental',
  contactroles: 'Administrative',
  countries: 'Administrative',
  equipmentstatus: 'Administrative',
  equipmenttypes: 'Technical',
  licenses: 'Administrative',
  manufacturers: 'Technical',
  measuredquantities: 'Physical',
  measuredquantityunits: 'Physical',
  platformtypes: 'Technical',
  samplingmedia: 'Environmental',
  sitetypes: 'Environmental',
  siteusages: 'Environmental',
  softwaretypes: 'Technical',
  units: 'Physical',
};
const CHEMICAL = new Set(['Carbon dioxide mole fraction', 'Electrical conductivity', 'Dissolved oxygen']);

/** The category of a term of `collection`. */
export function categoryOf(collection: string, term: string): string {
  return CHEMICAL.has(term) ? 'Chemical' : (CATEGORIES[collection] ?? 'Technical');
}

/** The sources the sample's terms come from: the global provenances, with a description and a URI. */
export const PROVENANCES: ReadonlyArray<readonly [name: string, description: string, uri: string | null]> = [
  [
    'NERC Vocabulary Server',
    'Controlled vocabularies of the British Oceanographic Data Centre.',
    'https://vocab.nerc.ac.uk/',
  ],
  ['QUDT', 'Quantities, Units, Dimensions and Types ontology.', 'https://qudt.org/'],
  ['Local definition', 'Defined by the editors of this vocabulary.', null],
  [
    'SPDX License List',
    'Identifiers and full names of licenses, by the Linux Foundation.',
    'https://spdx.org/licenses/',
  ],
  [
    'ISO 3166',
    'Country codes of the International Organization for Standardization.',
    'https://www.iso.org/iso-3166-country-codes.html',
  ],
  ['WMO Codes Registry', 'Code tables of the World Meteorological Organization.', 'https://codes.wmo.int/'],
  [
    'GCMD Science Keywords',
    'Earth science keywords of NASA’s Global Change Master Directory.',
    'https://gcmd.earthdata.nasa.gov/',
  ],
  [
    'ISO 19115 code lists',
    'Code lists of the geographic metadata standard ISO 19115.',
    'https://standards.iso.org/iso/19115/',
  ],
  [
    'CF Standard Names',
    'Names of physical quantities of the Climate and Forecast conventions.',
    'https://cfconventions.org/',
  ],
  [
    'GEMET',
    'General Multilingual Environmental Thesaurus of the European Environment Agency.',
    'https://www.eionet.europa.eu/gemet/',
  ],
  [
    'INSPIRE Registry',
    'Code lists of the European spatial data infrastructure.',
    'https://inspire.ec.europa.eu/registry',
  ],
  ['Wikidata', 'The free knowledge base of the Wikimedia Foundation.', 'https://www.wikidata.org/'],
  ['EnvThes', 'Thesaurus for long-term ecological research.', 'https://vocabs.lter-europe.net/envthes/'],
  ['ICOS Carbon Portal', 'Vocabularies of the Integrated Carbon Observation System.', 'https://meta.icos-cp.eu/'],
];

/** The provenance whose name the terms of a collection carry; the rest are local definitions. */
const SOURCE_OF: Readonly<Record<string, string>> = {
  aggregationtypes: 'WMO Codes Registry',
  compartments: 'GCMD Science Keywords',
  contactroles: 'ISO 19115 code lists',
  countries: 'ISO 3166',
  equipmenttypes: 'NERC Vocabulary Server',
  licenses: 'SPDX License List',
  measuredquantities: 'NERC Vocabulary Server',
  measuredquantityunits: 'QUDT',
  platformtypes: 'NERC Vocabulary Server',
  samplingmedia: 'NERC Vocabulary Server',
  units: 'QUDT',
};

/** The name of the provenance a collection's terms come from. */
export function sourceOf(collection: string): string {
  return SOURCE_OF[collection] ?? LOCAL_DEFINITION;
}

/** The provenance of the terms the vocabulary's editors define themselves. */
export const LOCAL_DEFINITION = 'Local definition';

/** A term's `provenance` text, naming the source its `global_provenance` points at. */
export function provenanceText(source: string): string {
  return source === LOCAL_DEFINITION ? 'Defined by the vocabulary editors' : `Adopted from ${source}`;
}

export const COMMUNITY_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['Zürich Urban Climate', 'ZUC'],
  ['Arctic Observatories', 'ARCOBS'],
  ['TERENO', 'TERENO'],
  ['Coastal Ocean Sensors', 'COS'],
  ['Forêt & Sol', 'F&S'],
  ['Hydrology Field Network', 'HFN'],
  ['Atmospheric Chemistry', 'ATMCHEM'],
  ['Polar Ship Operations', 'PSO'],
  ['Eddy Covariance Network', 'ECN'],
  ['Alpine Snow Observers', 'ASO'],
  ['Baltic Sea Monitoring', 'BSM'],
  ['Soil Moisture Network', 'SMN'],
  ['Urban Air Quality', 'UAQ'],
  ['River Observatories', 'RIVOBS'],
  ['Peatland Research', 'PEAT'],
  ['Lake Ecology Group', 'LEG'],
];

export const REQUESTERS: readonly string[] = ['jana.novak', 'o.eriksen', 'mueller-lab', 'p.dubois', 'field.team'];

/** The `i`-th entry of `list`; past its end, entries repeat with a number so every term of a collection is unique. */
export function entryAt(list: readonly Entry[], i: number): Entry {
  const [term, definition] = list[i % list.length] ?? ['Term', 'A term.'];
  return [termAt([term], Math.floor(i / list.length)), definition];
}

/** The `i`-th term of `list`; past its end, terms repeat with a number so every term of a collection is unique. */
export function termAt(list: readonly string[], i: number): string {
  const base = list[i % list.length] ?? `Term`;
  const round = Math.floor(i / list.length);
  return round === 0 ? base : `${base} ${round + 1}`;
}
