/// How one route of the chain failed, as the chain sees it (`ExportError.routeFailure`).
package enum RouteFailure: Sendable, Equatable {
    /// The route's plan is impossible for this input (no decoder for a main stream, a container that cannot hold it).
    case skipped
    /// The input's data is damaged: cut short, or more undecodable packets than the error policy allows.
    case damaged
    /// The input cannot go this route for another reason of its own: a codec failed, it stalled, the output did not
    /// match the plan.
    case inputFault
    /// Not the input's doing (the output refused, a cancellation, a usage error, the input changed): the chain stops.
    case hostFault
}
