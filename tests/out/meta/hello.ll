; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<uint>" = type opaque
declare void @"Generate"()

declare void @"Classify"()

declare void @"Accumulate"()

@"Histogram" = external constant %"class.RWStructuredBuffer<uint>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !19, !27, !32 }
!wgc.spirv.entryPoints = !{ !33, !34, !35 }
!wgc.experimental.tags = !{ !36, !37 }
!llvm.ident = !{ !38 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<uint>"* @"Histogram", !"Histogram", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ !3 }
!5 = !{ null, !4, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"Generate", i32 0 }
!8 = !{ i32 1024, i32 1, i32 1 }
!9 = !{ i32 0, i32 5, i32 1 }
!10 = !{ i32 0, i32 8, i32 1, !9, i32 2, i32 4 }
!11 = !{ i32 1, i32 97, i32 2, !10 }
!12 = !{ !11 }
!13 = !{ i32 0, i32 4, i32 2, i32 4 }
!14 = !{ !"Classify", i32 0 }
!15 = !{ i32 1, i32 6, i32 2, !13, i32 3, i32 64, i32 0, !14 }
!16 = !{ !15 }
!17 = !{ i32 64, i32 1, i32 1 }
!18 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !7, i32 16, i32 -1, i32 22, !8, i32 20, !12, i32 21, !16, i32 4, !17 }
!19 = !{ void ()* @"Generate", !"Generate", null, null, !18 }
!20 = !{ i32 1, i32 33, i32 2, !13 }
!21 = !{ !20 }
!22 = !{ !"Accumulate", i32 0 }
!23 = !{ i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !22 }
!24 = !{ !23 }
!25 = !{ i32 1, i32 1, i32 1 }
!26 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !14, i32 16, i32 -1, i32 20, !21, i32 21, !24, i32 4, !25 }
!27 = !{ void ()* @"Classify", !"Classify", null, null, !26 }
!28 = !{ i32 1, i32 65, i32 2, !13, i32 3, i32 32 }
!29 = !{ !28 }
!30 = !{ i32 32, i32 1, i32 1 }
!31 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !22, i32 16, i32 -1, i32 20, !29, i32 4, !30 }
!32 = !{ void ()* @"Accumulate", !"Accumulate", null, null, !31 }
!33 = !{ void ()* @"Generate", !"Generate" }
!34 = !{ void ()* @"Classify", !"Classify" }
!35 = !{ void ()* @"Accumulate", !"Accumulate" }
!36 = !{ !"NodeMaxLoopIterations", i32 131072 }
!37 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!38 = !{ !"wgc 0.1.0" }
