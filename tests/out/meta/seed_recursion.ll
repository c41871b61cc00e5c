; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"MyEntryNode"()

declare void @"MyRecursiveNode"()

declare void @"MyLeafNode"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !12, !18, !20 }
!wgc.spirv.entryPoints = !{ !21, !22, !23 }
!wgc.experimental.tags = !{ !24, !25 }
!llvm.ident = !{ !26 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"MyEntryNode", i32 0 }
!4 = !{ i32 0, i32 8, i32 2, i32 4 }
!5 = !{ i32 1, i32 33, i32 2, !4 }
!6 = !{ !5 }
!7 = !{ !"MyRecursiveNode", i32 0 }
!8 = !{ i32 1, i32 6, i32 2, !4, i32 3, i32 1, i32 0, !7 }
!9 = !{ !8 }
!10 = !{ i32 1, i32 1, i32 1 }
!11 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !3, i32 16, i32 -1, i32 20, !6, i32 21, !9, i32 4, !10 }
!12 = !{ void ()* @"MyEntryNode", !"MyEntryNode", null, null, !11 }
!13 = !{ i32 1, i32 6, i32 2, !4, i32 3, i32 2, i32 0, !7 }
!14 = !{ !"MyLeafNode", i32 0 }
!15 = !{ i32 1, i32 6, i32 2, !4, i32 3, i32 1, i32 0, !14 }
!16 = !{ !13, !15 }
!17 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !7, i32 16, i32 -1, i32 19, i32 16, i32 20, !6, i32 21, !16, i32 4, !10 }
!18 = !{ void ()* @"MyRecursiveNode", !"MyRecursiveNode", null, null, !17 }
!19 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !14, i32 16, i32 -1, i32 20, !6, i32 4, !10 }
!20 = !{ void ()* @"MyLeafNode", !"MyLeafNode", null, null, !19 }
!21 = !{ void ()* @"MyEntryNode", !"MyEntryNode" }
!22 = !{ void ()* @"MyRecursiveNode", !"MyRecursiveNode" }
!23 = !{ void ()* @"MyLeafNode", !"MyLeafNode" }
!24 = !{ !"NodeMaxLoopIterations", i32 131072 }
!25 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!26 = !{ !"wgc 0.1.0" }
