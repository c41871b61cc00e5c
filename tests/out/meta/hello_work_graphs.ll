; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"firstNode"()

declare void @"secondNode"()

declare void @"thirdNode"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !15, !24, !29 }
!wgc.spirv.entryPoints = !{ !30, !31, !32 }
!wgc.experimental.tags = !{ !33, !34 }
!llvm.ident = !{ !35 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"firstNode", i32 0 }
!4 = !{ i32 16, i32 1, i32 1 }
!5 = !{ i32 0, i32 5, i32 1 }
!6 = !{ i32 0, i32 8, i32 1, !5, i32 2, i32 4 }
!7 = !{ i32 1, i32 97, i32 2, !6 }
!8 = !{ !7 }
!9 = !{ i32 0, i32 8, i32 2, i32 4 }
!10 = !{ !"secondNode", i32 0 }
!11 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 2, i32 0, !10 }
!12 = !{ !11 }
!13 = !{ i32 2, i32 1, i32 1 }
!14 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !3, i32 16, i32 -1, i32 22, !4, i32 20, !8, i32 21, !12, i32 4, !13 }
!15 = !{ void ()* @"firstNode", !"firstNode", null, null, !14 }
!16 = !{ i32 1, i32 33, i32 2, !9 }
!17 = !{ !16 }
!18 = !{ i32 0, i32 4, i32 2, i32 4 }
!19 = !{ !"thirdNode", i32 0 }
!20 = !{ i32 1, i32 6, i32 2, !18, i32 3, i32 1, i32 0, !19 }
!21 = !{ !20 }
!22 = !{ i32 1, i32 1, i32 1 }
!23 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !17, i32 21, !21, i32 4, !22 }
!24 = !{ void ()* @"secondNode", !"secondNode", null, null, !23 }
!25 = !{ i32 1, i32 65, i32 2, !18, i32 3, i32 32 }
!26 = !{ !25 }
!27 = !{ i32 32, i32 1, i32 1 }
!28 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !19, i32 16, i32 -1, i32 20, !26, i32 4, !27 }
!29 = !{ void ()* @"thirdNode", !"thirdNode", null, null, !28 }
!30 = !{ void ()* @"firstNode", !"firstNode" }
!31 = !{ void ()* @"secondNode", !"secondNode" }
!32 = !{ void ()* @"thirdNode", !"thirdNode" }
!33 = !{ !"NodeMaxLoopIterations", i32 131072 }
!34 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!35 = !{ !"wgc 0.1.0" }
