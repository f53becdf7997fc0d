// Callers import one module: the values and the planner come with the API.
@_exported import MediaExportCore
