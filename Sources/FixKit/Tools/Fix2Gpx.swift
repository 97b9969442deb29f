public struct Fix2Gpx: Tool {
    public static let description = ToolDescription(name: "fix2gpx", summary: "x", details: "", options: [])
    public init(options: ParsedOptions) throws {}
    public mutating func run(inputs: [InputName], context: ToolContext) throws {}
}
