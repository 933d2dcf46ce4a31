import VidorientCore

/// Fractions as FFmpeg's av_reduce and av_d2q make them.
enum Rational {
    /// `num/den` in lowest terms within `maximum` (av_reduce's continued fraction).
    static func reduce(_ num: Int64, _ den: Int64, maximum: Int64) -> (Int64, Int64) {
        var (a0, a1) = ((Int64(0), Int64(1)), (Int64(1), Int64(0)))
        var (n, d) = (num, den)
        let g = gcd(n, d)
        if g > 1 {
            n /= g
            d /= g
        }
        if n <= maximum && d <= maximum { return (n, d) }
        while d != 0 {
            let x = n / d
            let next = n - d * x
            // FFmpeg's int64 arithmetic, without its overflow: a term past 64 bits is past `maximum` too.
            let (xn, o1) = x.multipliedReportingOverflow(by: a1.0), (a2n, o2) = xn.addingReportingOverflow(a0.0)
            let (xd, o3) = x.multipliedReportingOverflow(by: a1.1), (a2d, o4) = xd.addingReportingOverflow(a0.1)
            if o1 || o2 || o3 || o4 || a2n > maximum || a2d > maximum {
                var xx = x
                if a1.0 != 0 { xx = (maximum - a0.0) / a1.0 }
                if a1.1 != 0 { xx = min(xx, (maximum - a0.1) / a1.1) }
                if Int128(den) * (2 * Int128(xx) * Int128(a1.1) + Int128(a0.1)) > Int128(num) * Int128(a1.1) {
                    a1 = (xx * a1.0 + a0.0, xx * a1.1 + a0.1)
                }
                break
            }
            a0 = a1
            a1 = (a2n, a2d)
            n = d
            d = next
        }
        return (a1.0, a1.1)
    }

    /// av_d2q(value, INT_MAX), printed as `num:den` in lowest terms.
    static func approximate(_ value: Double) -> String? {
        guard value.isFinite, value > 0 else { return nil }
        let exponent = max(Int(log2(value).rounded(.down)) + 1, 0)
        let den = Int64(1) << (61 - exponent)
        let reduced = reduce(Int64((value * Double(den) + 0.5).rounded(.down)), den, maximum: Int64(Int32.max))
        return "\(reduced.0):\(reduced.1)"
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (abs(a), abs(b))
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
