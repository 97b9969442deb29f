import FixKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(ToolMain.run(FixStatsTool.self))
