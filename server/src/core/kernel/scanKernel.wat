;; The scan's work on every byte, sixteen bytes at a time (WebAssembly SIMD): counting newlines,
;; what JSON escaping adds to ASCII, and finding where a landmark may be. The bytes are copied
;; in after the candidate tables (at $text); a few bytes past their end are read, never counted.
;; Built by `npm run build:kernel` into scanKernel.wasm; scanKernel.ts says how it is used.
(module
  (memory (export "memory") 1)
  ;; Where the bytes start: the candidate tables come first.
  (global $text (export "text") i32 (i32.const 96))
  ;; The newlines the last summary counted.
  (global $lines (export "lines") (mut i32) (i32.const 0))

  ;; The four lanes of a vector of i32 added up.
  (func $sum (param $v v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))

  ;; Byte lanes counted (each 0 to 255) widened into four i32 lanes.
  (func $widen (param $v v128) (result v128)
    (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $v))))

  ;; The newlines in [start, end).
  (func $newlines (export "newlines") (param $start i32) (param $end i32) (result i32)
    (local $p i32) (local $count i32)
    (local.set $p (i32.add (local.get $start) (global.get $text)))
    (local.set $end (i32.add (local.get $end) (global.get $text)))
    (block $done
      (loop $vectors
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $count
          (i32.add (local.get $count)
            (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (i8x16.splat (i32.const 10)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vectors)))
    (block $tail
      (loop $bytes
        (br_if $tail (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $count (i32.add (local.get $count) (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes)))
    (local.get $count))

  ;; Where in [start, end) the n-th newline (n from 1) is, or -1 when there are fewer.
  (func (export "nthNewline") (param $start i32) (param $end i32) (param $n i32) (result i32)
    (local $p i32) (local $bits i32) (local $count i32)
    (local.set $p (i32.add (local.get $start) (global.get $text)))
    (local.set $end (i32.add (local.get $end) (global.get $text)))
    (block $done
      (loop $vectors
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $bits (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (i8x16.splat (i32.const 10)))))
        (local.set $count (i32.popcnt (local.get $bits)))
        (if (i32.ge_u (local.get $count) (local.get $n))
          (then
            ;; The n-th set bit: the lower ones cleared.
            (block $found
              (loop $clear
                (br_if $found (i32.eq (local.get $n) (i32.const 1)))
                (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
                (local.set $n (i32.sub (local.get $n) (i32.const 1)))
                (br $clear)))
            (return (i32.sub (i32.add (local.get $p) (i32.ctz (local.get $bits))) (global.get $text)))))
        (local.set $n (i32.sub (local.get $n) (local.get $count)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vectors)))
    (block $tail
      (loop $bytes
        (br_if $tail (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
          (then
            (if (i32.eq (local.get $n) (i32.const 1))
              (then (return (i32.sub (local.get $p) (global.get $text)))))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes)))
    (i32.const -1))

  ;; Of the bytes in [0, len): -1 when one is not ASCII; else what JSON escaping adds to them (1
  ;; for each quote, backslash and \b \t \n \f \r, 5 for each other control byte, written
  ;; \u00XX), their newlines left in $lines. Counted in byte lanes, widened every 255 vectors.
  (func (export "summary") (param $len i32) (result i32)
    (local $p i32) (local $stop i32) (local $end i32) (local $v v128) (local $control v128)
    (local $any v128) (local $escapes v128) (local $newlines v128) (local $long i32)
    (local $extra i32) (local $count i32) (local $byte i32)
    (local.set $p (global.get $text))
    (local.set $end (i32.add (local.get $len) (global.get $text)))
    (block $done
      (loop $rounds
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $stop (i32.add (local.get $p) (i32.const 4064))) ;; 255 vectors in all
        (if (i32.gt_u (local.get $stop) (i32.sub (local.get $end) (i32.const 16)))
          (then (local.set $stop (i32.sub (local.get $end) (i32.const 16)))))
        (local.set $escapes (v128.const i64x2 0 0))
        (local.set $newlines (v128.const i64x2 0 0))
        (loop $vectors
          (local.set $v (v128.load (local.get $p)))
          (local.set $any (v128.or (local.get $any) (local.get $v)))
          (local.set $control (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20))))
          ;; A lane true is -1: subtracting it counts one.
          (local.set $escapes
            (i8x16.sub (local.get $escapes)
              (v128.or (local.get $control)
                (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22)))
                         (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c)))))))
          (local.set $newlines (i8x16.sub (local.get $newlines) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 10)))))
          ;; Control bytes other than the five short escapes: 4 more each (rare; looked for when any).
          (if (v128.any_true (local.get $control))
            (then
              (local.set $long
                (i32.add (local.get $long)
                  (i32.popcnt (i8x16.bitmask
                    (v128.andnot (local.get $control)
                      (v128.or
                        (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a)))
                                 (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x09))))
                        (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0d)))
                          (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x08)))
                                   (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0c)))))))))))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (br_if $vectors (i32.le_u (local.get $p) (local.get $stop))))
        (local.set $extra (i32.add (local.get $extra) (call $sum (call $widen (local.get $escapes)))))
        (local.set $count (i32.add (local.get $count) (call $sum (call $widen (local.get $newlines)))))
        (br $rounds)))
    (if (i8x16.bitmask (local.get $any)) (then (return (i32.const -1))))
    (block $tail
      (loop $bytes
        (br_if $tail (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $byte (i32.load8_u (local.get $p)))
        (if (i32.ge_u (local.get $byte) (i32.const 0x80)) (then (return (i32.const -1))))
        (local.set $count (i32.add (local.get $count) (i32.eq (local.get $byte) (i32.const 0x0a))))
        (if (i32.or (i32.eq (local.get $byte) (i32.const 0x22)) (i32.eq (local.get $byte) (i32.const 0x5c)))
          (then (local.set $extra (i32.add (local.get $extra) (i32.const 1)))))
        (if (i32.lt_u (local.get $byte) (i32.const 0x20))
          (then
            (local.set $extra (i32.add (local.get $extra) (i32.const 1)))
            (if (i32.eqz
                  (i32.or
                    (i32.or (i32.eq (local.get $byte) (i32.const 0x0a)) (i32.eq (local.get $byte) (i32.const 0x09)))
                    (i32.or (i32.eq (local.get $byte) (i32.const 0x0d))
                      (i32.or (i32.eq (local.get $byte) (i32.const 0x08)) (i32.eq (local.get $byte) (i32.const 0x0c))))))
              (then (local.set $long (i32.add (local.get $long) (i32.const 1)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes)))
    (global.set $lines (local.get $count))
    (i32.add (local.get $extra) (i32.shl (local.get $long) (i32.const 2))))

;; The first position in [start, end) where one of eight needles may begin, or -1. A needle
  ;; is four bytes; the kernel looks at three of them (places 0, 1 and 3: enough to be rare), each
  ;; a set of bytes, letters compared with their case bit set. The sets are nibble tables at 0
  ;; (retain/landmarks.ts makes them): for each of the three places, 16 bytes indexed by a byte's
  ;; low nibble and 16 by its high nibble, each holding a bit per needle; a byte is in a needle's
  ;; set when its bit is in both (a set of several bytes lets a few more through, never fewer).
  ;; $needles masks the needles looked for. The nibbles of each 16 bytes are split once and
  ;; shifted into the later places from the next 16.
  (func (export "candidate") (param $start i32) (param $end i32) (param $needles i32) (result i32)
    (local $p i32) (local $stop i32) (local $m v128) (local $bits i32) (local $at i32)
    (local $lo0 v128) (local $hi0 v128) (local $lo1 v128) (local $hi1 v128) (local $lo3 v128) (local $hi3 v128)
    (local $mask v128) (local $case v128) (local $low v128) (local $f v128)
    (local $loA v128) (local $hiA v128) (local $loB v128) (local $hiB v128)
    (local.set $case (i8x16.splat (i32.const 0x20)))
    (local.set $low (i8x16.splat (i32.const 15)))
    (local.set $lo0 (v128.load (i32.const 0)))
    (local.set $hi0 (v128.load (i32.const 16)))
    (local.set $lo1 (v128.load (i32.const 32)))
    (local.set $hi1 (v128.load (i32.const 48)))
    (local.set $lo3 (v128.load (i32.const 64)))
    (local.set $hi3 (v128.load (i32.const 80)))
    (local.set $mask (i8x16.splat (local.get $needles)))
    (local.set $p (i32.add (local.get $start) (global.get $text)))
    (local.set $stop (i32.add (local.get $end) (global.get $text)))
    (local.set $f (v128.or (v128.load (local.get $p)) (local.get $case)))
    (local.set $loA (v128.and (local.get $f) (local.get $low)))
    (local.set $hiA (i8x16.shr_u (local.get $f) (i32.const 4)))
    (block $none
      (loop $vectors
        (br_if $none (i32.ge_u (local.get $p) (local.get $stop)))
        (local.set $f (v128.or (v128.load offset=16 (local.get $p)) (local.get $case)))
        (local.set $loB (v128.and (local.get $f) (local.get $low)))
        (local.set $hiB (i8x16.shr_u (local.get $f) (i32.const 4)))
        (local.set $m
          (v128.and
            (v128.and
              (v128.and (i8x16.swizzle (local.get $lo0) (local.get $loA)) (i8x16.swizzle (local.get $hi0) (local.get $hiA)))
              (v128.and
                (i8x16.swizzle (local.get $lo1) (i8x16.shuffle 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 (local.get $loA) (local.get $loB)))
                (i8x16.swizzle (local.get $hi1) (i8x16.shuffle 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 (local.get $hiA) (local.get $hiB)))))
            (v128.and
              (v128.and
                (i8x16.swizzle (local.get $lo3) (i8x16.shuffle 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 (local.get $loA) (local.get $loB)))
                (i8x16.swizzle (local.get $hi3) (i8x16.shuffle 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 (local.get $hiA) (local.get $hiB))))
              (local.get $mask))))
        (local.set $bits (i8x16.bitmask (i8x16.ne (local.get $m) (v128.const i64x2 0 0))))
        (if (local.get $bits)
          (then
            (local.set $at (i32.add (local.get $p) (i32.ctz (local.get $bits))))
            (return
              (select (i32.sub (local.get $at) (global.get $text)) (i32.const -1)
                (i32.lt_u (local.get $at) (local.get $stop))))))
        (local.set $loA (local.get $loB))
        (local.set $hiA (local.get $hiB))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vectors)))
    (i32.const -1)))
