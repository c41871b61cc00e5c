; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<uint>" = type opaque

@Histogram = external constant %"class.RWStructuredBuffer<uint>"

declare void @Accumulate()

declare void @Classify()

declare void @Generate()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !16, !24}
!wgc.spirv.entryPoints = !{!35, !36, !37}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<uint>"* @Histogram, !"Histogram", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @Accumulate, !"Accumulate", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !10, i32 16, i32 -1, i32 20, !11, i32 4, !14, i32 5, !15}
!10 = !{!"Accumulate", i32 0}
!11 = !{!12}
!12 = !{i32 1, i32 65, i32 2, !13, i32 3, i32 32}
!13 = !{i32 0, i32 4, i32 2, i32 4}
!14 = !{i32 32, i32 1, i32 1}
!15 = !{i32 0}
!16 = !{void ()* @Classify, !"Classify", null, null, !17}
!17 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !18, i32 16, i32 -1, i32 20, !19, i32 21, !21, i32 4, !23, i32 5, !15}
!18 = !{!"Classify", i32 0}
!19 = !{!20}
!20 = !{i32 1, i32 33, i32 2, !13}
!21 = !{!22}
!22 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !10}
!23 = !{i32 1, i32 1, i32 1}
!24 = !{void ()* @Generate, !"Generate", null, null, !25}
!25 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !26, i32 16, i32 -1, i32 22, !27, i32 20, !28, i32 21, !32, i32 4, !34, i32 5, !15}
!26 = !{!"Generate", i32 0}
!27 = !{i32 1024, i32 1, i32 1}
!28 = !{!29}
!29 = !{i32 1, i32 97, i32 2, !30}
!30 = !{i32 0, i32 8, i32 1, !31, i32 2, i32 4}
!31 = !{i32 0, i32 5, i32 1}
!32 = !{!33}
!33 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 64, i32 0, !18}
!34 = !{i32 64, i32 1, i32 1}
!35 = !{void ()* @Accumulate, !"Accumulate"}
!36 = !{void ()* @Classify, !"Classify"}
!37 = !{void ()* @Generate, !"Generate"}
