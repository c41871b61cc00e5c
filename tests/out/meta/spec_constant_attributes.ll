; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<uint>" = type opaque
declare void @"Classify"()

declare void @"Chunks"()

declare void @"Material"()

@"drawCounts" = external constant %"class.RWStructuredBuffer<uint>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !19, !24, !28 }
!wgc.spirv.entryPoints = !{ !29, !30, !31 }
!wgc.experimental.tags = !{ !32, !33 }
!llvm.ident = !{ !34 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<uint>"* @"drawCounts", !"drawCounts", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ !3 }
!5 = !{ null, !4, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"Classify", i32 0 }
!8 = !{ i32 8, i32 1, i32 1 }
!9 = !{ i32 0, i32 8, i32 2, i32 4 }
!10 = !{ !"Material", i32 1 }
!11 = !{ i32 1, i32 22, i32 2, !9, i32 3, i32 32, i32 5, i32 1, i32 0, !10, i32 7, i32 32 }
!12 = !{ i32 0, i32 5, i32 3 }
!13 = !{ i32 0, i32 16, i32 1, !12, i32 2, i32 4 }
!14 = !{ !"Chunks", i32 0 }
!15 = !{ i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !14 }
!16 = !{ !11, !15 }
!17 = !{ i32 64, i32 1, i32 1 }
!18 = !{ i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, !7, i32 16, i32 -1, i32 18, !8, i32 21, !16, i32 4, !17 }
!19 = !{ void ()* @"Classify", !"Classify", null, null, !18 }
!20 = !{ i32 1024, i32 1, i32 1 }
!21 = !{ i32 1, i32 97, i32 2, !13 }
!22 = !{ !21 }
!23 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !14, i32 16, i32 -1, i32 22, !20, i32 20, !22, i32 4, !17 }
!24 = !{ void ()* @"Chunks", !"Chunks", null, null, !23 }
!25 = !{ i32 1, i32 65, i32 2, !9, i32 3, i32 16 }
!26 = !{ !25 }
!27 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !10, i32 16, i32 -1, i32 20, !26, i32 4, !17 }
!28 = !{ void ()* @"Material", !"Material", null, null, !27 }
!29 = !{ void ()* @"Classify", !"Classify" }
!30 = !{ void ()* @"Chunks", !"Chunks" }
!31 = !{ void ()* @"Material", !"Material" }
!32 = !{ !"NodeMaxLoopIterations", i32 131072 }
!33 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!34 = !{ !"wgc 0.1.0" }
