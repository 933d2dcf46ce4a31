// swift-tools-version:6.0
// An example of using vidorient's libraries from another package: see main.swift.
import PackageDescription

let package = Package(
    name: "upright",
    dependencies: [
        // vidorient itself, by path; another project would use its git URL and a version.
        .package(name: "vidorient", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "upright",
            dependencies: [.product(name: "Vidorient", package: "vidorient")]
        )
    ]
)
