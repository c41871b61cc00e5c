; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"Generate"()

declare void @"Classify"()

declare void @"Accumulate"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !15, !23, !28 }
!wgc.spirv.entryPoints = !{ !29, !30, !31 }
!wgc.experimental.tags = !{ !32, !33 }
!llvm.ident = !{ !34 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"Generate", i32 0 }
!4 = !{ i32 1024, i32 1, i32 1 }
!5 = !{ i32 0, i32 5, i32 1 }
!6 = !{ i32 0, i32 8, i32 1, !5, i32 2, i32 4 }
!7 = !{ i32 1, i32 97, i32 2, !6 }
!8 = !{ !7 }
!9 = !{ i32 0, i32 4, i32 2, i32 4 }
!10 = !{ !"Classify", i32 0 }
!11 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 64, i32 0, !10 }
!12 = !{ !11 }
!13 = !{ i32 64, i32 1, i32 1 }
!14 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !3, i32 16, i32 -1, i32 22, !4, i32 20, !8, i32 21, !12, i32 4, !13 }
!15 = !{ void ()* @"Generate", !"Generate", null, null, !14 }
!16 = !{ i32 1, i32 33, i32 2, !9 }
!17 = !{ !16 }
!18 = !{ !"Accumulate", i32 0 }
!19 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 1, i32 0, !18 }
!20 = !{ !19 }
!21 = !{ i32 1, i32 1, i32 1 }
!22 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !17, i32 21, !20, i32 4, !21 }
!23 = !{ void ()* @"Classify", !"Classify", null, null, !22 }
!24 = !{ i32 1, i32 65, i32 2, !9, i32 3, i32 32 }
!25 = !{ !24 }
!26 = !{ i32 32, i32 1, i32 1 }
!27 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !18, i32 16, i32 -1, i32 20, !25, i32 4, !26 }
!28 = !{ void ()* @"Accumulate", !"Accumulate", null, null, !27 }
!29 = !{ void ()* @"Generate", !"Generate" }
!30 = !{ void ()* @"Classify", !"Classify" }
!31 = !{ void ()* @"Accumulate", !"Accumulate" }
!32 = !{ !"NodeMaxLoopIterations", i32 131072 }
!33 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!34 = !{ !"wgc 0.1.0" }
