;; The posting loops of job matching (posting-kernel.ts explains why they are WebAssembly).
;;
;; A posting is a word of the index (job-index.ts): the employee's number in its high bits
;; (word >>> shift) and the strength in steps in its low bits (word & steps). `bounds` is the
;; address of one f32 per employee, `entries` the address of the posting words; postings
;; [p, end) of one call belong to one skill and one level, so that `factor` is one number.
;; The walks take four postings at a time with SIMD (WebAssembly 2.0's fixed-width vectors),
;; then the last few one by one. Of a four, the words are decoded and the terms multiplied
;; together, but the bounds are added to lane after lane: a range that spans two skills may hold
;; one employee twice in a four, and the sums must be those of one posting after the other.
;; Addresses are byte offsets into the memory; `out` receives employee numbers.
(module
  (import "env" "memory" (memory 1))

  ;; bounds[entries[p] >>> shift] += factor · (entries[p] & steps) for p in [p, end).
  (func (export "walk")
    (param $entries i32) (param $p i32) (param $end i32) (param $factor f32)
    (param $bounds i32) (param $shift i32) (param $steps i32)
    (local $word i32) (local $at i32) (local $mid i32)
    (local $addresses v128) (local $terms v128)
    ;; Postings [p, mid) go four at a time: mid = p + (end − p) rounded down to a multiple of 4.
    (local.set $mid
      (i32.add (i32.and (i32.sub (local.get $end) (local.get $p)) (i32.const -4)) (local.get $p)))
    (block $fours
      (br_if $fours (i32.ge_u (local.get $p) (local.get $mid)))
      (loop $four
        ;; The bounds' addresses and the terms (factor · strength in steps) of postings p … p + 3.
        (local.set $addresses
          (i32x4.add
            (i32x4.shl
              (i32x4.shr_u
                (local.tee $terms
                  (v128.load align=4 (i32.add (local.get $entries) (i32.shl (local.get $p) (i32.const 2)))))
                (local.get $shift))
              (i32.const 2))
            (i32x4.splat (local.get $bounds))))
        (local.set $terms
          (f32x4.mul
            (f32x4.convert_i32x4_u (v128.and (local.get $terms) (i32x4.splat (local.get $steps))))
            (f32x4.splat (local.get $factor))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 0 (local.get $addresses)))
          (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 0 (local.get $terms))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 1 (local.get $addresses)))
          (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 1 (local.get $terms))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 2 (local.get $addresses)))
          (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 2 (local.get $terms))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 3 (local.get $addresses)))
          (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 3 (local.get $terms))))
        (br_if $four
          (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 4))) (local.get $mid)))))
    (block $ones
      (br_if $ones (i32.ge_u (local.get $p) (local.get $end)))
      (loop $one
        (local.set $word (i32.load (i32.add (local.get $entries) (i32.shl (local.get $p) (i32.const 2)))))
        (f32.store
          (local.tee $at
            (i32.add (local.get $bounds)
              (i32.shl (i32.shr_u (local.get $word) (local.get $shift)) (i32.const 2))))
          (f32.add
            (f32.load (local.get $at))
            (f32.mul
              (f32.convert_i32_u (i32.and (local.get $word) (local.get $steps)))
              (local.get $factor))))
        (br_if $one
          (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $end))))))

  ;; Every employee of postings [p, end) whose bound reaches `bar` is written to out[n++] and its
  ;; bound set to −∞ (taken); returns n.
  (func (export "scan")
    (param $entries i32) (param $p i32) (param $end i32) (param $bounds i32) (param $shift i32)
    (param $bar f32) (param $out i32) (result i32)
    (local $n i32) (local $at i32)
    (block $done
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (loop $posting
        (if (f32.ge
              (f32.load
                (local.tee $at
                  (i32.add (local.get $bounds)
                    (i32.shl
                      (i32.shr_u
                        (i32.load (i32.add (local.get $entries) (i32.shl (local.get $p) (i32.const 2))))
                        (local.get $shift))
                      (i32.const 2)))))
              (local.get $bar))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2)))
              (i32.shr_u (i32.sub (local.get $at) (local.get $bounds)) (i32.const 2)))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (f32.store (local.get $at) (f32.const -inf))))
        (br_if $posting
          (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $end)))))
    (local.get $n))

  ;; bounds[entries[p] >>> shift] = 0 for p in [p, end).
  (func (export "clear")
    (param $entries i32) (param $p i32) (param $end i32) (param $bounds i32) (param $shift i32)
    (block $done
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (loop $posting
        (f32.store
          (i32.add (local.get $bounds)
            (i32.shl
              (i32.shr_u
                (i32.load (i32.add (local.get $entries) (i32.shl (local.get $p) (i32.const 2))))
                (local.get $shift))
              (i32.const 2)))
          (f32.const 0))
        (br_if $posting
          (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $end))))))

  ;; walk's addition, then scan's test of the new bound, in one pass over postings [p, end): an
  ;; employee whose bound reaches `bar` is written to out[taken++] and its bound set to −∞.
  ;; Returns taken.
  (func (export "walkScan")
    (param $entries i32) (param $p i32) (param $end i32) (param $factor f32)
    (param $bounds i32) (param $shift i32) (param $steps i32) (param $bar f32) (param $out i32)
    (result i32)
    (local $word i32) (local $at i32) (local $taken i32) (local $mid i32) (local $sum f32)
    (local $addresses v128) (local $terms v128)
    (local.set $mid
      (i32.add (i32.and (i32.sub (local.get $end) (local.get $p)) (i32.const -4)) (local.get $p)))
    (block $fours
      (br_if $fours (i32.ge_u (local.get $p) (local.get $mid)))
      (loop $four
        (local.set $addresses
          (i32x4.add
            (i32x4.shl
              (i32x4.shr_u
                (local.tee $terms
                  (v128.load align=4 (i32.add (local.get $entries) (i32.shl (local.get $p) (i32.const 2)))))
                (local.get $shift))
              (i32.const 2))
            (i32x4.splat (local.get $bounds))))
        (local.set $terms
          (f32x4.mul
            (f32x4.convert_i32x4_u (v128.and (local.get $terms) (i32x4.splat (local.get $steps))))
            (f32x4.splat (local.get $factor))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 0 (local.get $addresses)))
          (local.tee $sum (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 0 (local.get $terms)))))
        (if (f32.ge (local.get $sum) (local.get $bar))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $taken) (i32.const 2)))
              (i32.shr_u (i32.sub (local.get $at) (local.get $bounds)) (i32.const 2)))
            (local.set $taken (i32.add (local.get $taken) (i32.const 1)))
            (f32.store (local.get $at) (f32.const -inf))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 1 (local.get $addresses)))
          (local.tee $sum (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 1 (local.get $terms)))))
        (if (f32.ge (local.get $sum) (local.get $bar))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $taken) (i32.const 2)))
              (i32.shr_u (i32.sub (local.get $at) (local.get $bounds)) (i32.const 2)))
            (local.set $taken (i32.add (local.get $taken) (i32.const 1)))
            (f32.store (local.get $at) (f32.const -inf))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 2 (local.get $addresses)))
          (local.tee $sum (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 2 (local.get $terms)))))
        (if (f32.ge (local.get $sum) (local.get $bar))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $taken) (i32.const 2)))
              (i32.shr_u (i32.sub (local.get $at) (local.get $bounds)) (i32.const 2)))
            (local.set $taken (i32.add (local.get $taken) (i32.const 1)))
            (f32.store (local.get $at) (f32.const -inf))))
        (f32.store
          (local.tee $at (i32x4.extract_lane 3 (local.get $addresses)))
          (local.tee $sum (f32.add (f32.load (local.get $at)) (f32x4.extract_lane 3 (local.get $terms)))))
        (if (f32.ge (local.get $sum) (local.get $bar))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $taken) (i32.const 2)))
              (i32.shr_u (i32.sub (local.get $at) (local.get $bounds)) (i32.const 2)))
            (local.set $taken (i32.add (local.get $taken) (i32.const 1)))
            (f32.store (local.get $at) (f32.const -inf))))
        (br_if $four
          (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 4))) (local.get $mid)))))
    (block $ones
      (br_if $ones (i32.ge_u (local.get $p) (local.get $end)))
      (loop $one
        (local.set $word (i32.load (i32.add (local.get $entries) (i32.shl (local.get $p) (i32.const 2)))))
        (f32.store
          (local.tee $at
            (i32.add (local.get $bounds)
              (i32.shl (i32.shr_u (local.get $word) (local.get $shift)) (i32.const 2))))
          (local.tee $sum
            (f32.add
              (f32.load (local.get $at))
              (f32.mul
                (f32.convert_i32_u (i32.and (local.get $word) (local.get $steps)))
                (local.get $factor)))))
        (if (f32.ge (local.get $sum) (local.get $bar))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $taken) (i32.const 2)))
              (i32.shr_u (i32.sub (local.get $at) (local.get $bounds)) (i32.const 2)))
            (local.set $taken (i32.add (local.get $taken) (i32.const 1)))
            (f32.store (local.get $at) (f32.const -inf))))
        (br_if $one
          (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $end)))))
    (local.get $taken))
)
